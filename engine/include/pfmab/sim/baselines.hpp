#pragma once

#include <cstdint>

#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/replication.hpp"

namespace pfmab::sim {

// The baselines a reviewer asks for, on the same streams, trajectory
// accounting and output as PF-UCB. Both decide slot by slot from every
// reward so far, so they draw every reward in either fidelity mode.

// local-ucb: every client runs UCB1 on its own local rewards (each arm once,
// then the argmax of mean + sqrt(2 log t / n)), with no communication. The
// clients never interact: each is one oneTBB task for the whole horizon.
ReplicationResult run_local_ucb(const Cell& cell, std::uint64_t seed, std::uint64_t replication);

// centralized-ucb: a full-information reference with no communication cost.
// At every slot, client m plays the argmax of its mixed estimate
// alpha mu_hat_{k,m} + (1 - alpha) (1/M) sum_n mu_hat_{k,n}, built from every
// client's samples, plus sqrt(2 log t * sum_n w_{m,n}^2 / T_{k,n}) with
// w_{m,n} = alpha [n = m] + (1 - alpha) / M (the estimate's variance for unit
// variance rewards); each client first pulls every arm once.
ReplicationResult run_centralized_ucb(const Cell& cell, std::uint64_t seed,
                                      std::uint64_t replication);

}  // namespace pfmab::sim
