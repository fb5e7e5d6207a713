#include "pfmab/mpi/launcher.hpp"

#include <cstdlib>
#include <utility>

namespace pfmab::mpi {

Launch launcher() {
  // each launcher's (size, rank) variables; PMIx names the rank only
  constexpr std::pair<const char*, const char*> kVariables[] = {
      {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, {"PMI_SIZE", "PMI_RANK"}, {"", "PMIX_RANK"}};
  for (const auto& [size, rank] : kVariables) {
    const char* ranks = std::getenv(size);
    const char* index = std::getenv(rank);
    if (!ranks && !index) continue;
    return {true, ranks ? std::atoi(ranks) : 0, index ? std::atoi(index) : 0};
  }
  return {};
}

}  // namespace pfmab::mpi
