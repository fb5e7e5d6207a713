#include "pfmab/io/row_block.hpp"

#include <cassert>

namespace pfmab::io {

void RowBlock::reset(std::size_t cell_index, std::size_t checkpoint_count,
                     std::size_t client_count) {
  cell = cell_index;
  checkpoints = checkpoint_count;
  clients = client_count;
  rows = 0;
  for (auto& values : real) values.clear();
  comm_count.clear();
  fixed_arm.clear();
  fixed_optimal.clear();
  phases.clear();
  exploration_pulls.clear();
  fixation_slot.clear();
}

void RowBlock::append(const sim::ReplicationResult& result) {
  assert(result.series.regret.size() == checkpoints && result.fixed_arm.size() == clients);
  for (std::size_t s = 0; s < real.size(); ++s) {
    const auto& values = result.series.*sim::kRealSeries[s].values;
    real[s].insert(real[s].end(), values.begin(), values.end());
  }
  const auto& comm = result.series.comm_count;
  comm_count.insert(comm_count.end(), comm.begin(), comm.end());
  fixed_arm.insert(fixed_arm.end(), result.fixed_arm.begin(), result.fixed_arm.end());
  fixed_optimal.insert(fixed_optimal.end(), result.fixed_optimal.begin(),
                       result.fixed_optimal.end());
  phases.push_back(result.phases);
  exploration_pulls.push_back(result.exploration_pulls);
  fixation_slot.push_back(result.fixation_slot);
  ++rows;
}

sim::ReplicationResult RowBlock::result(std::size_t row) const {
  sim::ReplicationResult out;
  auto assign = [](auto& to, auto from) { to.assign(from.begin(), from.end()); };
  for (std::size_t s = 0; s < real.size(); ++s) {
    assign(out.series.*sim::kRealSeries[s].values, row_of(real[s], checkpoints, row));
  }
  assign(out.series.comm_count, row_of(comm_count, checkpoints, row));
  assign(out.fixed_arm, row_of(fixed_arm, clients, row));
  assign(out.fixed_optimal, row_of(fixed_optimal, clients, row));
  out.phases = phases[row];
  out.exploration_pulls = exploration_pulls[row];
  out.fixation_slot = fixation_slot[row];
  return out;
}

}  // namespace pfmab::io
