#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pfmab/model/instance.hpp"
#include "pfmab/model/mixed_model.hpp"
#include "pfmab/sim/algorithm.hpp"
#include "pfmab/sim/exploration.hpp"
#include "pfmab/sim/participation.hpp"
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
  // The algorithm and its options (sim/algorithm.hpp), made where the
  // algorithms are (the experiment's registry entry, algorithms::pf_ucb()).
  // Required.
  AlgorithmChoice algorithm;
  // The weight the algorithm runs with, if not alpha (mis-specified
  // personalisation).
  std::optional<double> algorithm_alpha;
  Participation participation;  // for phased algorithms
  std::uint64_t horizon = 1'000'000;
  double comm_cost = 1.0;  // C, regret per client per exchange (2 per phase)
  CheckpointSpec checkpoints;
  Fidelity fidelity = Fidelity::aggregated;
  std::string instance_name = "inline";  // where the means came from
};

// Throw UserError for T < 1 and for a negative or non-finite C.
void validate_horizon(std::uint64_t horizon);
void validate_comm_cost(double comm_cost);

// One cell, validated, with everything derived from it that replications
// read and never write: the mixed model the regret is measured against, the
// configured algorithm, and the checkpoint grid.
class Cell {
 public:
  // `index` is the cell's position in its sweep (part of every stream key).
  // Throws UserError for T < 1, a negative or non-finite C, whatever the
  // mixed model or the algorithm reject, partial participation with an
  // algorithm that is not phased, an invalid participation, a reward family
  // the algorithm refuses (Algorithm::refuses), and the aggregated mode
  // for a family
  // without exact sums.
  Cell(CellSpec spec, std::uint64_t index);

  std::uint64_t index() const { return index_; }
  const CellSpec& spec() const { return spec_; }
  const model::Instance& instance() const { return *spec_.instance; }
  const model::MixedModel& measured() const { return measured_; }
  const Algorithm& algorithm() const { return *algorithm_; }
  // The weight the algorithm runs with (the measured one unless mis-specified).
  double algorithm_alpha() const { return spec_.algorithm_alpha.value_or(spec_.alpha); }
  std::uint64_t horizon() const { return spec_.horizon; }
  const std::vector<std::uint64_t>& checkpoints() const { return checkpoints_; }
  // How its rewards are drawn: as the mode says, except by an algorithm that
  // decides slot by slot, which draws every one.
  Fidelity drawn_fidelity() const;

 private:
  CellSpec spec_;
  std::uint64_t index_;
  model::MixedModel measured_;
  std::shared_ptr<const Algorithm> algorithm_;
  std::vector<std::uint64_t> checkpoints_;
};

}  // namespace pfmab::sim
