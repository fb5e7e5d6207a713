#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "pfmab/sim/phased.hpp"

namespace pfmab::python {

// One replication of an algorithm written in Python (a pfmab.Algorithm,
// python/pfmab/algorithm.py): each hook of the phased protocol calls the
// method of the same name of `policy`, the replication's own object. The
// hooks run on oneTBB's threads while the thread that called pfmab.run
// waits with the GIL released: each takes the GIL for its call. What a
// method returns is checked before the engine reads it: an impossible value
// raises pfmab.PolicyError naming the method and the value. A Python
// exception leaves the hook as py::error_already_set, which the engine
// passes through to the caller, its traceback kept.
class PolicyState final : public sim::PhasedState {
 public:
  // `policy` made for a game of `clients` x `arms`.
  PolicyState(pybind11::object policy, std::size_t clients, std::size_t arms);
  ~PolicyState() override;

  bool finished() const override;
  void begin_phase(std::uint64_t phase, std::span<const std::uint32_t> participants) override;
  void plan(std::size_t m, std::vector<sim::Run>& runs) override;
  void record(std::size_t m, std::uint32_t arm, std::uint64_t pulls, double sum) override;
  std::uint32_t exploit_arm(std::size_t m) const override;
  void aggregate(std::span<const std::uint32_t> participants) override;
  void update(std::size_t m) override;
  void end_phase() override;
  std::optional<std::uint32_t> fixed_arm(std::size_t m) const override;

 private:
  // "ExploreThenCommit.plan(m=2)": how a message names a call.
  std::string call_name(const char* method, std::optional<std::size_t> m = std::nullopt) const;
  // `value`, returned by `call`, as an arm: an int in [0, K).
  std::uint32_t arm_of(pybind11::handle value, const std::string& call) const;

  pybind11::object policy_;
  std::string class_name_;
  std::size_t arms_;
  // Each client's runs of this phase: sim::Run views its arms and counts,
  // read until aggregate() returns.
  struct PlannedRun {
    std::vector<std::uint32_t> arms;
    std::vector<std::uint64_t> counts;  // empty: the run's rounds each
  };
  std::vector<std::vector<PlannedRun>> planned_;
};

}  // namespace pfmab::python
