#pragma once

// An algorithm registered at run time as python/src/ registers a Python
// class, for tests that need one without Python: the worked example's
// name and options (pfmab.examples.epsilon_greedy:FederatedEpsilonGreedy,
// exploration and first_phase), phased, its cost not modelled
// (sim::Algorithm::cost_modelled), its replications pf-ucb's.

#include <array>
#include <memory>
#include <string_view>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/sim/algorithm.hpp"
#include "pfmab/sim/replication.hpp"

namespace pfmab::testing {

inline constexpr std::string_view kPythonStandIn =
    "pfmab.examples.epsilon_greedy:FederatedEpsilonGreedy";

class PythonStandIn final : public sim::Algorithm {
 public:
  explicit PythonStandIn(std::shared_ptr<const sim::Algorithm> played)
      : played_(std::move(played)) {}
  std::string_view name() const override { return kPythonStandIn; }
  sim::Protocol protocol() const override { return sim::Protocol::phased; }
  bool cost_modelled() const override { return false; }
  sim::ReplicationResult replicate(const sim::Cell& cell, std::uint64_t seed,
                                   std::uint64_t replication,
                                   const StopToken& stop) const override {
    return played_->replicate(cell, seed, replication, stop);
  }

 private:
  std::shared_ptr<const sim::Algorithm> played_;
};

// Registers the stand-in once per process, whichever test asks first.
inline void register_python_stand_in() {
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
  static const algorithms::OptionGroup group{kPythonStandIn, options};
  static const bool once = [] {
    algorithms::register_algorithm(
        {kPythonStandIn,
         &group,
         [](const io::CellValues& values,
            const sim::CellContext& cell) -> std::shared_ptr<const sim::Algorithm> {
           return std::make_shared<PythonStandIn>(
               algorithms::find_algorithm("pf-ucb").configure(values, cell));
         },
         {}});
    return true;
  }();
  (void)once;
}

}  // namespace pfmab::testing
