#include "pfmab/algorithms/registry.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"

namespace pfmab::algorithms {

// Registering an algorithm is one line here: the entry its file defines
// (`const AlgorithmEntry entries::NAME{...}`), in the order messages and
// --help list them.
#define PFMAB_ALGORITHMS(X) \
  X(pf_ucb)                 \
  X(pf_ucb_enhanced)        \
  X(local_ucb)              \
  X(centralized_ucb)        \
  X(local_kl_ucb)           \
  X(centralized_kl_ucb)     \
  X(local_thompson)         \
  X(centralized_thompson)   \
  X(explore_then_commit)     \
  X(pf_alloc)

namespace entries {
#define PFMAB_DECLARE(name) extern const AlgorithmEntry name;
PFMAB_ALGORITHMS(PFMAB_DECLARE)
#undef PFMAB_DECLARE
}  // namespace entries

namespace {

#define PFMAB_LIST(name) &entries::name,
const std::array kEntries{PFMAB_ALGORITHMS(PFMAB_LIST)};
#undef PFMAB_LIST

}  // namespace

std::span<const AlgorithmEntry> registered_algorithms() {
  static const auto all = [] {
    std::vector<AlgorithmEntry> v;
    for (const auto* entry : kEntries) v.push_back(*entry);
    return v;
  }();
  return all;
}

const AlgorithmEntry& find_algorithm(std::string_view name) {
  std::string names;
  for (const auto& entry : registered_algorithms()) {
    if (entry.name == name) return entry;
    names += fmt::format("{}{}", names.empty() ? "" : ", ", entry.name);
  }
  throw UserError(fmt::format("unknown algorithm '{}' (expected one of {})", excerpt(name), names));
}

std::vector<const OptionGroup*> option_groups() {
  std::vector<const OptionGroup*> groups;
  for (const auto& entry : registered_algorithms()) {
    if (entry.options && std::find(groups.begin(), groups.end(), entry.options) == groups.end()) {
      groups.push_back(entry.options);
    }
  }
  return groups;
}

const OptionGroup* owner_of(std::string_view key) {
  for (const auto* group : option_groups()) {
    for (const auto& parameter : group->parameters) {
      if (parameter.key == key) return group;
    }
  }
  return nullptr;
}

}  // namespace pfmab::algorithms
