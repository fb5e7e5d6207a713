#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <pcg_random.hpp>

#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/model/instance.hpp"
#include "pfmab/sim/exploration.hpp"
#include "pfmab/sim/trajectory.hpp"
#include "pfmab/util/stop_token.hpp"

namespace pfmab::algorithms {

// The authors'-code waiting (client.py; docs/internals.md, "The authors' code"): for `slots`
// slots client `client` plays, chosen again after every pull, the argmax over
// all arms of alpha s_k / T_k + (1 - alpha) mu_bar_k (its fixed arm, once it
// has one), and every reward feeds s and T. Appends what it played to
// `played`, one segment per stretch on one arm.
//
// per-pull: every reward drawn, the argmax taken after each one.
// aggregated: the same law in O(log slots) draws per change of arm. Only the
// arm played moves its value, so the question after each change is when its
// running mean first drops below the level at which the next best would
// win, which the arm's reward sampler answers (its family's
// Sampler::until_below_zero, families/): for Gaussian rewards, the first passage of a
// random walk below a line, sampled exactly as a Brownian motion observed at
// whole pulls (endpoint, then midpoints of Brownian bridges, conditioned on
// whether the path dips below the line); for Bernoulli rewards, Binomial
// jumps of as many pulls as no run of failures could cross, then single
// pulls near it.
void wait_exploiting(sim::Fidelity fidelity, const model::Instance& instance, std::size_t client,
                     pcg32& stream, PfUcbClient& state, double alpha, std::uint64_t slots,
                     std::vector<sim::Segment>& played, const StopToken& stop = {});

}  // namespace pfmab::algorithms
