#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pfmab/algorithms/algorithm.hpp"
#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/model/instance.hpp"
#include "pfmab/model/mixed_model.hpp"
#include "pfmab/sim/exploration.hpp"
#include "pfmab/theory/bounds.hpp"

namespace pfmab::sim {

// How densely a replication's series are recorded (see checkpoint_grid).
struct CheckpointSpec {
  std::size_t log_points = 40;
  std::size_t linear_points = 20;
};

// What the user asks of one cell of a sweep.
struct CellSpec {
  std::shared_ptr<const model::Instance> instance;
  double alpha = 0.5;  // the personalisation weight the regret is measured with
  algorithms::AlgorithmKind algorithm = algorithms::AlgorithmKind::pf_ucb;
  // The weight the algorithm runs with, if not alpha (mis-specified
  // personalisation).
  std::optional<double> algorithm_alpha;
  algorithms::PfUcbParams params;  // PF-UCB's; `enhanced` follows `algorithm`
  algorithms::Participation participation;
  std::uint64_t horizon = 1'000'000;
  double comm_cost = 1.0;  // C, regret per client per exchange (2 per phase)
  CheckpointSpec checkpoints;
  Fidelity fidelity = Fidelity::aggregated;
  std::string instance_name = "inline";  // where the means came from
};

// How a cell's rewards are drawn: as its mode says, except by the baselines,
// which read every reward and so draw every one.
Fidelity drawn_fidelity(algorithms::AlgorithmKind algorithm, Fidelity mode);
inline Fidelity drawn_fidelity(const CellSpec& spec) {
  return drawn_fidelity(spec.algorithm, spec.fidelity);
}

// Throw UserError for T < 1 and for a negative or non-finite C.
void validate_horizon(std::uint64_t horizon);
void validate_comm_cost(double comm_cost);

// One cell, validated, with everything derived from it that replications
// read and never write: the mixed model the regret is measured against, the
// algorithm's lengths and radii, and the checkpoint grid.
class Cell {
 public:
  // `index` is the cell's position in its sweep (part of every stream key).
  // Throws UserError for T < 1, a negative or non-finite C, whatever the
  // mixed model or PF-UCB rule reject, PF-UCB's options (preset, lengths,
  // participation) given to a baseline, and an invalid participation.
  Cell(CellSpec spec, std::uint64_t index);

  std::uint64_t index() const { return index_; }
  const CellSpec& spec() const { return spec_; }
  const model::Instance& instance() const { return *spec_.instance; }
  const model::MixedModel& measured() const { return measured_; }
  const algorithms::PfUcbRule& rule() const { return rule_; }
  // The weight the algorithm runs with (the measured one unless mis-specified).
  double algorithm_alpha() const { return rule_.alpha(); }
  std::uint64_t horizon() const { return spec_.horizon; }
  const std::vector<std::uint64_t>& checkpoints() const { return checkpoints_; }

 private:
  CellSpec spec_;
  std::uint64_t index_;
  model::MixedModel measured_;
  algorithms::PfUcbRule rule_;
  std::vector<std::uint64_t> checkpoints_;
};

// The paper's bounds for the cell: Theorem 1 and Corollary 1 for its game,
// Theorem 2 where the cell's algorithm is PF-UCB as Algorithm 1 prints it
// (the paper's lengths, every client, the algorithm's alpha equal to the
// measured one), else NaN with the reason.
theory::Bounds bounds_of(const Cell& cell);

}  // namespace pfmab::sim
