#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/replication.hpp"

namespace pfmab::sim {

struct RunOptions {
  std::uint64_t seed = 0;
  std::uint64_t replications = 1;
  unsigned threads = 1;  // oneTBB worker threads, at least 1
  // Incremented once per finished replication, for a progress display.
  std::atomic<std::uint64_t>* completed = nullptr;
};

// Runs `replications` replications of every cell in parallel on `threads`
// oneTBB threads. result[c][r] is replication r of cell c, bit-identical for
// any thread count. Throws UserError for zero replications or zero threads.
std::vector<std::vector<ReplicationResult>> run_sweep(std::span<const Cell> cells,
                                                      const RunOptions& options);

// The hex digest of every replication's results, cell by cell, in order.
std::string digest_of(const std::vector<std::vector<ReplicationResult>>& results);

}  // namespace pfmab::sim
