// join_world of a build without MPI (PFMAB_MPI=OFF); world_mpi.cpp is the
// other's.
#include <fmt/format.h>

#include "pfmab/mpi/launcher.hpp"
#include "pfmab/run/world.hpp"
#include "pfmab/util/error.hpp"

namespace pfmab::run {

std::unique_ptr<World> join_world(int&, char**&) {
  const auto launch = mpi::launcher();
  if (launch.ranks > 1) {
    if (launch.rank != 0) throw ReportedElsewhere{2};  // one message for the job
    throw UserError(fmt::format(
        "started as {} MPI ranks, but this pfmab was built without MPI, so each would run the "
        "whole experiment (rebuild with -DPFMAB_MPI=ON, or run it alone)",
        launch.ranks));
  }
  return std::make_unique<OneRank>();
}

}  // namespace pfmab::run
