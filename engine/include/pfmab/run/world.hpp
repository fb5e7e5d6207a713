#pragma once

#include <functional>
#include <memory>
#include <span>

#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/runner.hpp"

namespace pfmab::run {

// The processes a run is shared among: this one alone, or the ranks of an
// MPI job, of which rank 0 (the leader) writes the output and reports.
class World {
 public:
  virtual ~World() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool leader() const { return rank() == 0; }

  // Runs `step` on every rank. If it fails on any, it fails on all with the
  // same status, and only one rank reports it (the others throw
  // ReportedElsewhere): no rank may go on to wait for the others for ever,
  // and N ranks must not print N copies of one message.
  virtual void on_every_rank(const std::function<void()>& step) = 0;

  // Runs `step`, during which the ranks wait on one another: an error on
  // one rank would leave the others waiting, so it ends them all.
  virtual void all_or_none(const std::function<void()>& step) = 0;

  // Runs the replications of `options.ranges` of every cell, shared among
  // the ranks, and hands them to the leader's `sink` in (cell, replication)
  // order; the other ranks' sinks are never called. `options.stop` is read
  // on the leader only: it stops the whole run.
  virtual void run(std::span<const sim::Cell> cells, const sim::RunOptions& options,
                   const sim::ResultSink& sink) = 0;
};

// A failure of World::on_every_rank that another rank reports: this one
// ends with `status`, silently.
struct ReportedElsewhere {
  int status;
};

// This process alone: what the benchmarks and tests run in, and the world
// of a program started without an MPI launcher.
class OneRank final : public World {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void on_every_rank(const std::function<void()>& step) override { step(); }
  void all_or_none(const std::function<void()>& step) override { step(); }
  void run(std::span<const sim::Cell> cells, const sim::RunOptions& options,
           const sim::ResultSink& sink) override {
    sim::run_sweep(cells, options, sink);
  }
};

// The world this process was started in: under an MPI launcher, its job's
// ranks (MPI is initialised for the life of the object, from the command
// line), else this process alone. A build without MPI (PFMAB_MPI=OFF) has
// one-rank worlds only, and refuses to start as several ranks, each of
// which would run the whole experiment: throws UserError on rank 0 and
// ReportedElsewhere on the others. Throws SystemError if MPI fails to start.
std::unique_ptr<World> join_world(int& argc, char**& argv);

}  // namespace pfmab::run
