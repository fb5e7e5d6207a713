#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/model/instance.hpp"
#include "pfmab/model/mixed_model.hpp"

namespace pfmab::sim {

// What the user asks of one cell of a sweep.
struct CellSpec {
  std::shared_ptr<const model::Instance> instance;
  double alpha = 0.5;
  algorithms::PfUcbParams params;
  std::uint64_t horizon = 1'000'000;
  double comm_cost = 1.0;  // C, regret per client per communication round
};

// One cell, validated, with everything derived from it that replications
// read and never write: the mixed model the regret is measured against, the
// algorithm's lengths and radii, and the checkpoint grid.
class Cell {
 public:
  // `index` is the cell's position in its sweep (part of every stream key).
  // Throws UserError for T < 1, a negative or non-finite C, and whatever
  // the mixed model or PF-UCB rule reject.
  Cell(CellSpec spec, std::uint64_t index);

  std::uint64_t index() const { return index_; }
  const CellSpec& spec() const { return spec_; }
  const model::Instance& instance() const { return *spec_.instance; }
  const model::MixedModel& measured() const { return measured_; }
  const algorithms::PfUcbRule& rule() const { return rule_; }
  std::uint64_t horizon() const { return spec_.horizon; }
  const std::vector<std::uint64_t>& checkpoints() const { return checkpoints_; }

 private:
  CellSpec spec_;
  std::uint64_t index_;
  model::MixedModel measured_;
  algorithms::PfUcbRule rule_;
  std::vector<std::uint64_t> checkpoints_;
};

}  // namespace pfmab::sim
