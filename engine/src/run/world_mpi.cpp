// join_world of a build with MPI (PFMAB_MPI=ON); world_without_mpi.cpp is
// the other's.
#include <exception>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "pfmab/mpi/distributed_run.hpp"
#include "pfmab/mpi/launcher.hpp"
#include "pfmab/run/world.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/stop_token.hpp"

namespace pfmab::run {
namespace {

// The ranks of the MPI job this process belongs to (one, under `mpirun -np
// 1`: then it runs as a process alone does).
class MpiWorld final : public World {
 public:
  MpiWorld(int& argc, char**& argv) : session_(argc, argv) {}

  int rank() const override { return session_.rank(); }
  int size() const override { return session_.size(); }

  void on_every_rank(const std::function<void()>& step) override {
    if (size() == 1) return step();
    std::exception_ptr error;
    int status = 0;
    try {
      step();
    } catch (const UserError&) {
      error = std::current_exception();
      status = 2;
    } catch (const Interrupted&) {
      error = std::current_exception();
      status = 130;  // as the program exits after a stop request
    } catch (const std::exception&) {
      error = std::current_exception();
      status = 1;
    }
    const auto agreed = mpi::agree(status);
    if (agreed.status == 0) return;
    if (agreed.rank == rank()) std::rethrow_exception(error);
    throw ReportedElsewhere{agreed.status};
  }

  void all_or_none(const std::function<void()>& step) override {
    if (size() == 1) return step();
    try {
      step();
    } catch (const std::exception& e) {
      std::cerr << fmt::format("pfmab: error on rank {}: {}\n", rank(), e.what());
      mpi::abort_all(1);
    }
  }

  void run(std::span<const sim::Cell> cells, const sim::RunOptions& options,
           const sim::ResultSink& sink) override {
    if (size() == 1) return sim::run_sweep(cells, options, sink);
    mpi::run_distributed(cells, options, sink);
  }

 private:
  mpi::Session session_;
};

}  // namespace

std::unique_ptr<World> join_world(int& argc, char**& argv) {
  // Only under an MPI launcher: the same program runs alone without one.
  if (!mpi::launcher().launched) return std::make_unique<OneRank>();
  try {
    return std::make_unique<MpiWorld>(argc, argv);
  } catch (const std::exception& e) {
    throw SystemError(e.what());
  }
}

}  // namespace pfmab::run
