#include "pfmab/sim/exploration.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "pfmab/rng/samplers.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"

namespace pfmab::sim {

std::string_view to_string(Fidelity fidelity) {
  return fidelity == Fidelity::per_pull ? "per-pull" : "aggregated";
}

Fidelity parse_fidelity(std::string_view name) {
  if (name == "per-pull") return Fidelity::per_pull;
  if (name == "aggregated") return Fidelity::aggregated;
  throw UserError(
      fmt::format("unknown mode '{}' (expected 'aggregated' or 'per-pull')", excerpt(name)));
}

void draw_reward_sums(Fidelity fidelity, const model::Instance& instance, std::size_t client,
                      pcg32& stream, const Run& run, std::span<double> sums,
                      const StopToken& stop) {
  if (fidelity == Fidelity::per_pull) {
    explore_per_pull(instance, client, stream, run, sums, stop);
  } else {
    explore_aggregated(instance, client, stream, run, sums);
  }
}

namespace {

// Calls draw(i) once per pull of run.arms[i], in the run's slot order,
// looking for a stop request every 2^16 pulls or so (between chunks, so the
// loops that draw are as tight as without it).
template <class Draw>
void for_each_pull(const Run& run, const StopToken& stop, Draw&& draw) {
  constexpr std::uint64_t pulls_per_look = std::uint64_t{1} << 16;
  const std::size_t n = run.arms.size();
  const std::uint64_t rounds_per_look = std::max<std::uint64_t>(1, pulls_per_look / n);
  if (run.order == Order::blocked) {
    for (std::size_t i = 0; i < n; ++i) {
      stop.in_chunks(run.pulls(i), pulls_per_look, [&](std::uint64_t first, std::uint64_t last) {
        for (std::uint64_t r = first; r < last; ++r) draw(i);
      });
    }
  } else if (run.counts.empty()) {
    stop.in_chunks(run.rounds, rounds_per_look, [&](std::uint64_t first, std::uint64_t last) {
      for (std::uint64_t r = first; r < last; ++r) {
        for (std::size_t i = 0; i < n; ++i) draw(i);
      }
    });
  } else {
    const std::uint64_t most = *std::max_element(run.counts.begin(), run.counts.end());
    stop.in_chunks(most, rounds_per_look, [&](std::uint64_t first, std::uint64_t last) {
      for (std::uint64_t r = first; r < last; ++r) {
        for (std::size_t i = 0; i < n; ++i) {
          if (r < run.counts[i]) draw(i);
        }
      }
    });
  }
}

}  // namespace

void explore_per_pull(const model::Instance& instance, std::size_t client, pcg32& stream,
                      const Run& run, std::span<double> sums, const StopToken& stop) {
  const std::size_t n = run.arms.size();
  const auto means = instance.local_means(client);
  if (instance.rewards().kind == model::RewardKind::gaussian) {
    // X = mu + sigma Z: sum the Z per arm, scale once.
    std::vector<double> noise(n, 0.0);
    rng::UnitNormal normal;
    for_each_pull(run, stop, [&](std::size_t i) { noise[i] += normal(stream); });
    const double sigma = instance.rewards().sigma;
    for (std::size_t i = 0; i < n; ++i) {
      sums[i] = static_cast<double>(run.pulls(i)) * means[run.arms[i]] + sigma * noise[i];
    }
  } else {
    std::vector<std::uint64_t> threshold(n), successes(n, 0);
    for (std::size_t i = 0; i < n; ++i) threshold[i] = rng::bernoulli_threshold(means[run.arms[i]]);
    for_each_pull(run, stop,
                  [&](std::size_t i) { successes[i] += std::uint64_t{stream()} < threshold[i]; });
    for (std::size_t i = 0; i < n; ++i) sums[i] = static_cast<double>(successes[i]);
  }
}

void explore_aggregated(const model::Instance& instance, std::size_t client, pcg32& stream,
                        const Run& run, std::span<double> sums) {
  const auto means = instance.local_means(client);
  if (instance.rewards().kind == model::RewardKind::gaussian) {
    const double sigma = instance.rewards().sigma;
    rng::UnitNormal normal;
    for (std::size_t i = 0; i < run.arms.size(); ++i) {
      const auto n = static_cast<double>(run.pulls(i));
      sums[i] = n * means[run.arms[i]] + sigma * std::sqrt(n) * normal(stream);
    }
  } else {
    for (std::size_t i = 0; i < run.arms.size(); ++i) {
      sums[i] = static_cast<double>(
          rng::binomial(stream, static_cast<std::int64_t>(run.pulls(i)), means[run.arms[i]]));
    }
  }
}

}  // namespace pfmab::sim
