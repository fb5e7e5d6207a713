#include "pfmab/sim/replication.hpp"

#include <algorithm>

#include "pfmab/sim/baselines.hpp"
#include "pfmab/sim/pf_ucb_replication.hpp"

namespace pfmab::sim {

bool ReplicationResult::identified() const {
  return std::all_of(fixed_optimal.begin(), fixed_optimal.end(), [](auto ok) { return ok != 0; });
}

void ReplicationResult::add_to(Digest& digest) const {
  digest.add<double>(series.regret);
  digest.add<double>(series.local_reward);
  digest.add<double>(series.global_reward);
  digest.add<double>(series.mixed_reward);
  digest.add<std::uint64_t>(series.comm_count);
  digest.add(phases);
  digest.add(exploration_pulls);
  digest.add<std::int32_t>(fixed_arm);
  digest.add<std::uint8_t>(fixed_optimal);
  digest.add(fixation_slot);
}

ReplicationResult run_replication(const Cell& cell, std::uint64_t seed, std::uint64_t replication,
                                  const StopToken& stop) {
  switch (cell.spec().algorithm) {
    case algorithms::AlgorithmKind::local_ucb:
      return run_local_ucb(cell, seed, replication, stop);
    case algorithms::AlgorithmKind::centralized_ucb:
      return run_centralized_ucb(cell, seed, replication, stop);
    default:
      return run_pf_ucb(cell, seed, replication, stop);
  }
}

}  // namespace pfmab::sim
