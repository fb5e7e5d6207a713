#pragma once

#include <span>

#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/runner.hpp"

// A run shared among the ranks of an MPI job (`mpirun -np N pfmab run ...`).
// Built with -DPFMAB_MPI=ON only.
namespace pfmab::mpi {

// MPI for the life of the object: initialised with every thread allowed to
// call it (the worker's pipeline calls it from its filters), finalised at
// the end.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

// Every rank's `status` (0: ready) compared: the worst (largest) one, and
// the lowest rank that has it, which alone reports its error.
struct Agreement {
  int status = 0;
  int rank = 0;
};
Agreement agree(int status);

// Ends every rank at once, with `status` (an error on one rank mid-run).
[[noreturn]] void abort_all(int status);

// Runs the replications of `options.ranges` of every cell on all ranks,
// each with `options.threads` threads. Rank 0 hands out blocks of
// replications to the ranks that ask (itself included), takes their rows
// back and calls `sink` with every result in (cell, replication) order, from
// its own thread: what a one-process run_sweep would give, so outputs and
// digests are the same. Other ranks never call `sink`. `options.stop` is
// honoured on rank 0 (no new block starts; those out are finished).
void run_distributed(std::span<const sim::Cell> cells, const sim::RunOptions& options,
                     const sim::ResultSink& sink);

}  // namespace pfmab::mpi
