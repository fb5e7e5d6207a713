#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include <pcg_random.hpp>

#include "pfmab/model/instance.hpp"
#include "pfmab/sim/trajectory.hpp"
#include "pfmab/util/stop_token.hpp"

namespace pfmab::sim {

// How an exploration run's rewards are drawn (docs/fidelity.md). PF-UCB
// reads only each arm's reward sum at the end of a phase, so both modes give
// every decision, and so every series, the same distribution.
enum class Fidelity {
  per_pull,    // every pull draws its reward: cost grows with T
  aggregated,  // each arm's sum over the run is drawn at once: cost independent of T
};

std::string_view to_string(Fidelity fidelity);   // "per-pull", "aggregated"
Fidelity parse_fidelity(std::string_view name);  // throws UserError

// Client `client` makes the pulls of `run`; sums[i] receives the reward sum
// of run.arms[i] (run.pulls(i) pulls), drawn from `stream` as `fidelity` says.
// Per pull, polls `stop` (throws Interrupted).
void draw_reward_sums(Fidelity fidelity, const model::Instance& instance, std::size_t client,
                      pcg32& stream, const Run& run, std::span<double> sums,
                      const StopToken& stop = {});

// Per-pull: every reward drawn, in the run's slot order.
void explore_per_pull(const model::Instance& instance, std::size_t client, pcg32& stream,
                      const Run& run, std::span<double> sums, const StopToken& stop = {});

// Aggregated: one draw per arm from the exact law of a sum of n = run.pulls(i)
// rewards, in arm order: N(n mu, n sigma^2) or Binomial(n, mu).
void explore_aggregated(const model::Instance& instance, std::size_t client, pcg32& stream,
                        const Run& run, std::span<double> sums);

}  // namespace pfmab::sim
