#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "pfmab/sim/replication.hpp"
#include "pfmab/sim/trajectory.hpp"

namespace pfmab::io {

// Consecutive replications of one cell laid out as the output file stores
// them (README, "The output file"): for each per-replication dataset, its
// rows one after another. A run's sink copies each result into a block; the
// writer thread summarises the block and hands each dataset's rows to HDF5
// as they are. A block is reused: once grown to the largest cell, filling it
// allocates nothing.
struct RowBlock {
  std::size_t cell = 0;
  std::size_t checkpoints = 0;
  std::size_t clients = 0;
  std::size_t rows = 0;
  std::array<std::vector<double>, std::size(sim::kRealSeries)> real;  // [rows, checkpoints]
  std::vector<std::uint64_t> comm_count;                              // [rows, checkpoints]
  std::vector<std::int32_t> fixed_arm;                                // [rows, clients]
  std::vector<std::uint8_t> fixed_optimal;                            // [rows, clients]
  std::vector<std::uint64_t> phases;                                  // [rows]
  std::vector<std::uint64_t> exploration_pulls;                       // [rows]
  std::vector<std::int64_t> fixation_slot;                            // [rows]

  // Empties the block for rows of `cell`.
  void reset(std::size_t cell_index, std::size_t checkpoint_count, std::size_t client_count);
  void append(const sim::ReplicationResult& result);
  sim::ReplicationResult result(std::size_t row) const;

  // The block appended to `bytes`, and read back from them, for another
  // process of the same build (the ranks of one MPI job: same layout and
  // byte order). read_bytes throws std::runtime_error if they do not hold
  // exactly one block.
  void write_bytes(std::vector<char>& bytes) const;
  static RowBlock read_bytes(std::span<const char> bytes);

  // Row `row` of a [rows, width] dataset's values.
  template <class T>
  static std::span<const T> row_of(const std::vector<T>& values, std::size_t width,
                                   std::size_t row) {
    return std::span<const T>(values).subspan(row * width, width);
  }
};

}  // namespace pfmab::io
