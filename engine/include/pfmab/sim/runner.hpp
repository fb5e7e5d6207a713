#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/replication.hpp"
#include "pfmab/sim/shard.hpp"

namespace pfmab::sim {

struct RunOptions {
  std::uint64_t seed = 0;
  std::uint64_t replications = 1;
  unsigned threads = 1;  // oneTBB worker threads, at least 1
  // Per cell, the replications to run (a shard, a resumed run); empty:
  // [0, replications) of every cell.
  std::vector<ReplicationRange> ranges;
  // Incremented once per finished replication, for a progress display.
  std::atomic<std::uint64_t>* completed = nullptr;
  // Told what each replication took as soon as it is done, in any order and
  // from any thread (on another rank: as its rows reach rank 0), before it
  // is handed on in order: for a progress display, which would otherwise
  // not see the replications done but waiting for an earlier one.
  std::function<void(std::size_t cell, const TimeUsed& used)> timed;
  // Once true, no further replication starts, and those running are
  // interrupted and discarded (with every one after them): the sink has
  // received a prefix of the run's order.
  const std::atomic<bool>* stop = nullptr;
  // Called in the run's task arena once the sink has received its last
  // replication (or the run failed), before the arena's threads go: for
  // work the sink gave them to finish there (io::WriterThread's offers).
  std::function<void()> settle;
};

// Throws UserError for zero replications, or threads not in [1, limits::max_threads()].
void validate(const RunOptions& options);

// Receives every finished replication in (cell, replication) order, from one
// thread at a time.
using ResultSink =
    std::function<void(std::size_t cell, std::uint64_t replication, ReplicationResult&& result)>;

// The most replications in flight at once on `threads` threads: begun, or
// done and waiting for an earlier one, but not yet handed to the sink. A few
// per thread, so that memory does not grow with the number of replications.
std::size_t max_in_flight(unsigned threads);

// Runs the replications of every cell in parallel on `threads` oneTBB
// threads and hands them to `sink` in order, at most max_in_flight(threads)
// in flight. Results are bit-identical for any thread count. Throws what
// validate throws.
void run_sweep(std::span<const Cell> cells, const RunOptions& options, const ResultSink& sink);

// A block of replications of one cell.
struct Block {
  std::size_t cell = 0;
  ReplicationRange replications;
};

// The next block to run, or none when the run is over; called from one
// thread at a time, and may wait (for a block from another process).
using BlockSource = std::function<std::optional<Block>()>;

// The same, for the replications of the blocks `source` gives, handed to
// `sink` in that order (`options.ranges` is not used).
void run_blocks(std::span<const Cell> cells, const RunOptions& options, const BlockSource& source,
                const ResultSink& sink);

// The same, collecting everything: result[c][r] is replication r of cell c.
std::vector<std::vector<ReplicationResult>> run_sweep(std::span<const Cell> cells,
                                                      const RunOptions& options);

// The hex digest of every replication's results, cell by cell, in order.
std::string digest_of(const std::vector<std::vector<ReplicationResult>>& results);

}  // namespace pfmab::sim
