#pragma once

#include "pfmab/sim/algorithm.hpp"

namespace pfmab::algorithms {

// The KL-aware baselines, as a cell's algorithm (what the registry's
// "local-kl-ucb" and "centralized-kl-ucb" make): local-ucb and
// centralized-ucb (baselines.hpp) with kl-UCB's confidence bounds
// (Garivier & Cappe 2011; Cappe, Garivier, Maillard, Munos & Stoltz 2013)
// in place of the sub-Gaussian bonus, so that they run on every family with
// a KL divergence (families::Divergence) and are tight on Bernoulli ones.
// The exploration function is log t (c = 0 of the papers, the one their
// experiments use). Ties go to the lowest arm, exactly: arms with the same
// statistics have the same index.

// local-kl-ucb: every client alone on its own local rewards; each arm once
// in index order, then at slot t the argmax of
// U_k(t) = max{q in [mu_hat_k, high] : n_k KL(mu_hat_k, q) <= log t}. It
// ignores alpha. Each client is one oneTBB task for the whole horizon.
sim::AlgorithmChoice local_kl_ucb();

// centralized-kl-ucb: centralized-ucb's structure (every client's statistics
// in one place, every slot decided from all) with a KL confidence region for
// client m's mixed mean: U_{k,m}(t) = max sum_n w_{m,n} lambda_n subject to
// sum_n T_{k,n} KL(mu_hat_{k,n}, lambda_n) <= log t, w_{m,n} = alpha [n = m]
// + (1 - alpha) / M, alpha the algorithm's. Found by its multiplier, which
// needs the region convex: refuses families whose KL(mu, .) is not
// (exponential). Gaussian rewards: centralized-ucb's index. alpha = 1:
// local-kl-ucb's decisions. Sequential: one task.
sim::AlgorithmChoice centralized_kl_ucb();

}  // namespace pfmab::algorithms
