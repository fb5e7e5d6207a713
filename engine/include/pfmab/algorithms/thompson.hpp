#pragma once

#include "pfmab/sim/algorithm.hpp"

namespace pfmab::algorithms {

// The Thompson sampling baselines, as a cell's algorithm (what the
// registry's "local-thompson" and "centralized-thompson" make). Both decide
// slot by slot from every reward so far, drawing each arm's mean from the
// reward family's posterior (families::HasPosterior: Gaussian, Bernoulli,
// Poisson, exponential; they refuse a family without one, Student-t), so
// they need no sub-Gaussian constant and run where the UCB baselines
// refuse. Each client first pulls every arm once in index order, so that no
// posterior is drawn from before an arm's first reward (some priors are
// improper). What they report is in sim/slot_by_slot.hpp.

// local-thompson: every client runs Thompson sampling on its own local
// rewards: at each slot one posterior draw per arm, the argmax played
// (lowest index on ties); no communication. It ignores alpha. The posterior
// draws come from the client's own stream, key (seed, cell, replication,
// M + 1 + m): past the reward streams 0..M-1 and the server's M.
sim::AlgorithmChoice local_thompson();

// centralized-thompson: a full-information reference with no communication
// cost. At each slot the server draws one posterior sample theta_{k,n} of
// every client's local mean of every arm, from one stream (key (seed, cell,
// replication, M), the server's), and client m plays the argmax over k of
// sum_n w_{m,n} theta_{k,n}, w_{m,n} = alpha [n = m] + (1 - alpha) / M
// (alpha the algorithm's): Thompson sampling on the joint model, each client
// best-responding to the sampled game. O(M K) per slot. At alpha = 1 it is
// local-thompson in law (not in bits: other streams).
sim::AlgorithmChoice centralized_thompson();

}  // namespace pfmab::algorithms
