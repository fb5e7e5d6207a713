#include "pfmab/sim/exploration.hpp"

#include <vector>

#include "pfmab/rng/samplers.hpp"

namespace pfmab::sim {

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

}  // namespace pfmab::sim
