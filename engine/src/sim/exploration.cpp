#include "pfmab/sim/exploration.hpp"

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "pfmab/rng/samplers.hpp"
#include "pfmab/util/error.hpp"

namespace pfmab::sim {

std::string_view to_string(Fidelity fidelity) {
  return fidelity == Fidelity::per_pull ? "per-pull" : "aggregated";
}

Fidelity parse_fidelity(std::string_view name) {
  if (name == "per-pull") return Fidelity::per_pull;
  if (name == "aggregated") return Fidelity::aggregated;
  throw UserError(fmt::format("unknown mode '{}' (expected 'aggregated' or 'per-pull')", name));
}

void draw_reward_sums(Fidelity fidelity, const model::Instance& instance, std::size_t client,
                      pcg32& stream, const RoundRobin& run, std::span<double> sums) {
  if (fidelity == Fidelity::per_pull) {
    explore_per_pull(instance, client, stream, run, sums);
  } else {
    explore_aggregated(instance, client, stream, run, sums);
  }
}

void explore_per_pull(const model::Instance& instance, std::size_t client, pcg32& stream,
                      const RoundRobin& run, std::span<double> sums) {
  const std::size_t n = run.arms.size();
  const auto means = instance.local_means(client);
  const auto pulls = static_cast<double>(run.rounds);
  if (instance.rewards().kind == model::RewardKind::gaussian) {
    // X = mu + sigma Z: sum the Z per arm, scale once.
    std::vector<double> noise(n, 0.0);
    rng::UnitNormal normal;
    for (std::uint64_t r = 0; r < run.rounds; ++r) {
      for (std::size_t i = 0; i < n; ++i) noise[i] += normal(stream);
    }
    const double sigma = instance.rewards().sigma;
    for (std::size_t i = 0; i < n; ++i) sums[i] = pulls * means[run.arms[i]] + sigma * noise[i];
  } else {
    std::vector<std::uint64_t> threshold(n), successes(n, 0);
    for (std::size_t i = 0; i < n; ++i) threshold[i] = rng::bernoulli_threshold(means[run.arms[i]]);
    for (std::uint64_t r = 0; r < run.rounds; ++r) {
      for (std::size_t i = 0; i < n; ++i) successes[i] += std::uint64_t{stream()} < threshold[i];
    }
    for (std::size_t i = 0; i < n; ++i) sums[i] = static_cast<double>(successes[i]);
  }
}

void explore_aggregated(const model::Instance& instance, std::size_t client, pcg32& stream,
                        const RoundRobin& run, std::span<double> sums) {
  const auto means = instance.local_means(client);
  const auto n = run.rounds;
  if (instance.rewards().kind == model::RewardKind::gaussian) {
    const double spread = instance.rewards().sigma * std::sqrt(static_cast<double>(n));
    rng::UnitNormal normal;
    for (std::size_t i = 0; i < run.arms.size(); ++i) {
      sums[i] = static_cast<double>(n) * means[run.arms[i]] + spread * normal(stream);
    }
  } else {
    for (std::size_t i = 0; i < run.arms.size(); ++i) {
      sums[i] = static_cast<double>(
          rng::binomial(stream, static_cast<std::int64_t>(n), means[run.arms[i]]));
    }
  }
}

}  // namespace pfmab::sim
