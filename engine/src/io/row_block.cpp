#include "pfmab/io/row_block.hpp"

#include <cassert>
#include <cstring>
#include <stdexcept>

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

namespace {

// Each column of a block in one order, for both directions.
template <class Block, class Visit>
void for_each_column(Block& block, Visit&& visit) {
  for (auto& values : block.real) visit(values);
  visit(block.comm_count);
  visit(block.fixed_arm);
  visit(block.fixed_optimal);
  visit(block.phases);
  visit(block.exploration_pulls);
  visit(block.fixation_slot);
}

}  // namespace

void RowBlock::write_bytes(std::vector<char>& bytes) const {
  auto put = [&](const void* data, std::size_t size) {
    const auto* from = static_cast<const char*>(data);
    bytes.insert(bytes.end(), from, from + size);
  };
  const std::uint64_t header[] = {cell, checkpoints, clients, rows};
  put(header, sizeof header);
  for_each_column(*this, [&](const auto& values) {
    const std::uint64_t size = values.size();
    put(&size, sizeof size);
    put(values.data(), size * sizeof values[0]);
  });
}

RowBlock RowBlock::read_bytes(std::span<const char> bytes) {
  auto take = [&](void* data, std::size_t size) {
    if (size > bytes.size()) throw std::runtime_error("a block's bytes end early");
    std::memcpy(data, bytes.data(), size);
    bytes = bytes.subspan(size);
  };
  std::uint64_t header[4];
  take(header, sizeof header);
  RowBlock block;
  block.reset(header[0], header[1], header[2]);
  block.rows = header[3];
  for_each_column(block, [&](auto& values) {
    std::uint64_t size = 0;
    take(&size, sizeof size);
    if (size > bytes.size()) throw std::runtime_error("a block's bytes end early");
    values.resize(size);
    take(values.data(), size * sizeof values[0]);
  });
  if (!bytes.empty()) throw std::runtime_error("bytes left after a block");
  return block;
}

}  // namespace pfmab::io
