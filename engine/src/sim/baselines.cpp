#include "pfmab/sim/baselines.hpp"

#include <stdexcept>

namespace pfmab::sim {

ReplicationResult run_local_ucb(const Cell&, std::uint64_t, std::uint64_t) {
  throw std::logic_error("local-ucb: not built yet");
}

ReplicationResult run_centralized_ucb(const Cell&, std::uint64_t, std::uint64_t) {
  throw std::logic_error("centralized-ucb: not built yet");
}

}  // namespace pfmab::sim
