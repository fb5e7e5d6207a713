#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "pfmab/io/row_block.hpp"
#include "pfmab/sim/runner.hpp"

namespace pfmab::mpi {

// The bookkeeping of a run shared among processes (MPI ranks): blocks of
// replications handed out one at a time to whoever asks, in (cell,
// replication) order, and their rows put back in that order for the one
// writer. Dynamic hand-out balances the work whatever each block costs (cells
// may differ in cost by orders of magnitude); the order of the rows, and so
// the output, does not depend on who ran what.
//
// Not thread-safe: the caller serialises the calls.
class BlockHandout {
 public:
  // The replications of each cell in `ranges`, for `ranks` processes of
  // `threads` threads each.
  BlockHandout(std::span<const sim::ReplicationRange> ranges, std::size_t ranks,
               std::size_t threads);

  // The next block of a cell with `remaining` replications left to hand out
  // (guided self-scheduling): 1/(2 ranks) of them, so that blocks shrink as
  // the cell runs out and the ranks finish within about one replication per
  // thread of one another, whatever a replication costs; at most 256, one
  // chunk of the output file; at least one replication per thread.
  static std::uint64_t block_size(std::uint64_t remaining, std::size_t ranks,
                                  std::size_t threads);

  enum class Status { block, wait, done };
  struct Answer {
    Status status = Status::done;
    std::uint64_t id = 0;  // numbered from 0 in hand-out order
    sim::Block block;
  };
  // The next block for process `who`. `wait` (ask again later) when results
  // held for writing have reached the window and the oldest missing one is
  // not `who`'s: the process that holds it is never kept waiting, so the
  // window never stalls the run.
  Answer next(int who);
  // The rows of block `id`.
  void finished(std::uint64_t id, io::RowBlock rows);
  // The next block and its rows in hand-out order, once they are in.
  std::optional<std::pair<sim::Block, io::RowBlock>> pop_in_order();
  // No block is handed out any more (the run was interrupted).
  void stop() { stopped_ = true; }
  // Every block handed out has come back and been popped, and none is left
  // (or the run was stopped).
  bool complete() const {
    return (stopped_ || next_cell_ == ranges_.size()) && popped_ == next_id_;
  }

 private:
  std::vector<sim::ReplicationRange> ranges_;
  std::size_t ranks_;
  std::size_t threads_;
  std::size_t window_;
  std::size_t next_cell_ = 0;
  std::uint64_t next_replication_ = 0;
  std::uint64_t next_id_ = 0;
  std::uint64_t popped_ = 0;
  // A block handed out and not yet popped: who holds it, its rows once back.
  struct Out {
    sim::Block block;
    int holder;
    std::optional<io::RowBlock> rows;
  };
  std::map<std::uint64_t, Out> out_;  // by id
  bool stopped_ = false;
};

}  // namespace pfmab::mpi
