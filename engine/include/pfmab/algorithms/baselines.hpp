#pragma once

#include "pfmab/sim/algorithm.hpp"

namespace pfmab::algorithms {

// The baselines, as a cell's algorithm (what the registry's "local-ucb" and
// "centralized-ucb" make). Both decide slot by slot from every reward so far,
// so they draw every reward in either fidelity mode; what they report is in
// sim/slot_by_slot.hpp.

// local-ucb: every client runs UCB1 on its own local rewards (each arm once
// in index order, then at slot t the argmax of mean + s sqrt(2 log t / n),
// lowest index on ties), with no communication. It ignores alpha. The
// clients never interact: each is one oneTBB task for the whole horizon.
sim::AlgorithmChoice local_ucb();

// centralized-ucb: a full-information reference with no communication cost.
// Each client first pulls every arm once; then at every slot t, from the
// statistics after slot t - 1, client m plays the argmax of its mixed
// estimate alpha mu_hat_{k,m} + (1 - alpha) (1/M) sum_n mu_hat_{k,n}, built
// from every client's samples, plus s sqrt(2 log t * sum_n w_{m,n}^2 / T_{k,n})
// with w_{m,n} = alpha [n = m] + (1 - alpha) / M (the estimate's variance for
// unit variance rewards), alpha the algorithm's. Sequential: one task. At
// alpha = 1 it makes local-ucb's decisions.
// Not consistent at every alpha: client m's estimate and width on arm k keep
// the other clients' parts, which improve only as they pull arm k, and a
// client pulls an arm that is poor for it about log t times. So the width
// has a floor that is highest on arms poor for the others (often m's local
// best), and at intermediate alpha a client can settle on an arm that is not
// mixed-optimal and lose linearly (the synthetic game at alpha = 0.2 and 0.5:
// see statistical/baselines_test.cpp).
sim::AlgorithmChoice centralized_ucb();

}  // namespace pfmab::algorithms
