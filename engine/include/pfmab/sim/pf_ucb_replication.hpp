#pragma once

#include <cstdint>

#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/replication.hpp"
#include "pfmab/sim/stop_token.hpp"

namespace pfmab::sim {

// A replication of PF-UCB or its enhanced version, with the cell's preset,
// exploration lengths, algorithm alpha and participation: one oneTBB task
// per client and phase step, the server step run by the last client to
// arrive. Blocks the calling thread until done (it takes part in the work).
ReplicationResult run_pf_ucb(const Cell& cell, std::uint64_t seed, std::uint64_t replication,
                             const StopToken& stop = {});

}  // namespace pfmab::sim
