#include "pfmab/algorithms/registry.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>

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

// The table of registered algorithms. A registration at run time makes a
// longer copy rather than growing the table in place, and keeps every
// earlier copy, so that no span handed out before it ever dangles.
class Table {
 public:
  Table() {
    auto first = std::make_unique<std::vector<AlgorithmEntry>>();
    for (const auto* entry : kEntries) first->push_back(*entry);
    current_ = first.get();
    copies_.push_back(std::move(first));
  }

  std::span<const AlgorithmEntry> current() const {
    return *current_.load(std::memory_order_acquire);
  }

  void add(const AlgorithmEntry& entry) {
    const std::lock_guard lock(mutex_);
    for (const auto& registered : current()) {
      if (registered.name == entry.name) {
        throw UserError(
            fmt::format("an algorithm named '{}' is already registered", excerpt(entry.name)));
      }
    }
    auto longer = std::make_unique<std::vector<AlgorithmEntry>>(*current_.load());
    longer->push_back(entry);
    current_.store(longer.get(), std::memory_order_release);
    copies_.push_back(std::move(longer));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<const std::vector<AlgorithmEntry>>> copies_;
  std::atomic<const std::vector<AlgorithmEntry>*> current_{nullptr};
};

Table& table() {
  static Table all;
  return all;
}

std::atomic<Resolver> resolver{nullptr};

}  // namespace

std::span<const AlgorithmEntry> registered_algorithms() { return table().current(); }

void register_algorithm(const AlgorithmEntry& entry) { table().add(entry); }

std::size_t registrations() { return registered_algorithms().size() - kEntries.size(); }

const AlgorithmEntry* registered_algorithm(std::string_view name) {
  for (const auto& entry : registered_algorithms()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

void set_resolver(Resolver given) { resolver.store(given); }

void resolve_algorithm(std::string_view name) {
  const auto resolve = resolver.load();
  if (resolve && name.find(':') != std::string_view::npos && !registered_algorithm(name)) {
    resolve(name);
  }
}

const AlgorithmEntry& find_algorithm(std::string_view name) {
  resolve_algorithm(name);
  if (const auto* entry = registered_algorithm(name)) return *entry;
  std::string names;
  for (const auto& entry : registered_algorithms()) {
    names += fmt::format("{}{}", names.empty() ? "" : ", ", entry.name);
  }
  throw UserError(
      fmt::format("unknown algorithm '{}' (expected one of {}, or a Python class as "
                  "module:Class)",
                  excerpt(name), names));
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
    if (declares(group, key)) return group;
  }
  return nullptr;
}

bool declares(const OptionGroup* group, std::string_view key) {
  return group && std::any_of(group->parameters.begin(), group->parameters.end(),
                              [&](const io::Parameter& parameter) { return parameter.key == key; });
}

}  // namespace pfmab::algorithms
