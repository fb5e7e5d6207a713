#pragma once

// Algorithms registered at run time as python/src/ registers a Python
// class, for tests that need one without Python: by default the worked
// example's name and options (pfmab.examples.epsilon_greedy:
// FederatedEpsilonGreedy, exploration and first_phase), phased, its cost
// not modelled (sim::Algorithm::cost_modelled), its replications pf-ucb's.

#include <array>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/sim/algorithm.hpp"
#include "pfmab/sim/replication.hpp"

namespace pfmab::testing {

inline constexpr std::string_view kPythonStandIn =
    "pfmab.examples.epsilon_greedy:FederatedEpsilonGreedy";

class PythonStandIn final : public sim::Algorithm {
 public:
  PythonStandIn(std::string_view name, std::shared_ptr<const sim::Algorithm> played)
      : name_(name), played_(std::move(played)) {}
  std::string_view name() const override { return name_; }
  sim::Protocol protocol() const override { return sim::Protocol::phased; }
  bool cost_modelled() const override { return false; }
  sim::ReplicationResult replicate(const sim::Cell& cell, std::uint64_t seed,
                                   std::uint64_t replication,
                                   const StopToken& stop) const override {
    return played_->replicate(cell, seed, replication, stop);
  }

 private:
  std::string_view name_;
  std::shared_ptr<const sim::Algorithm> played_;
};

// Registers a stand-in named `name` ("module:Class") once per process,
// whichever test asks first; every one declares the same options, which
// they share.
inline void register_python_stand_in(std::string_view name = kPythonStandIn) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
  static const std::array<io::Parameter, 2> options{{
      {.key = "algorithm.exploration",
       .order = io::Parameter::kRegisteredAtRunTime,
       .type = io::ValueType::real,
       .fallback = "10",
       .sweeps = true},
      {.key = "algorithm.first_phase",
       .order = io::Parameter::kRegisteredAtRunTime,
       .type = io::ValueType::whole,
       .fallback = "10",
       .sweeps = true,
       .least = 1},
  }};
#pragma GCC diagnostic pop
  // what the registry's entries view, kept for the life of the process
  static std::set<std::string, std::less<>> registered;
  static std::deque<algorithms::OptionGroup> groups;
  if (registered.contains(name)) return;
  const std::string_view kept = *registered.emplace(name).first;
  groups.push_back({kept, options});
  algorithms::register_algorithm(
      {kept, &groups.back(),
       [](const io::CellValues& values,
          const sim::CellContext& cell) -> std::shared_ptr<const sim::Algorithm> {
         const auto& name = values.word("algorithm.name");
         return std::make_shared<PythonStandIn>(
             *registered.find(name), algorithms::find_algorithm("pf-ucb").configure(values, cell));
       },
       {}});
}

}  // namespace pfmab::testing
