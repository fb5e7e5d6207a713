#include "pfmab/sim/exploration.hpp"

#include <algorithm>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "pfmab/families/registry.hpp"
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
// loops that draw are as tight as without it). `draw` is taken by value, and
// captures what it draws into by value: read through references, its
// captures were reloaded every round (4% more time at 2 arms).
template <class Draw>
void for_each_pull(const Run& run, const StopToken& stop, Draw draw) {
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
  families::with_sampler(instance.rewards(), [&]<class Rewards>(std::type_identity<Rewards>) {
    const std::size_t n = run.arms.size();
    std::vector<typename Rewards::Tally> tallies;
    tallies.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      tallies.emplace_back(Rewards(instance.local_mean(client, run.arms[i]), instance.rewards()));
    }
    for_each_pull(run, stop,
                  [tally = tallies.data(), &stream](std::size_t i) { tally[i].add(stream); });
    for (std::size_t i = 0; i < n; ++i) sums[i] = tallies[i].sum(run.pulls(i));
  });
}

namespace {

// Flattened: left to itself, GCC calls the Gaussian ziggurat out of line
// here, and saving registers around the call costs about as much as the
// draw's fast path.
template <class Rewards>
[[gnu::flatten]] void sum_each_arm(const model::Instance& instance, std::size_t client,
                                   pcg32& stream, const Run& run, std::span<double> sums) {
  for (std::size_t i = 0; i < run.arms.size(); ++i) {
    const Rewards rewards(instance.local_mean(client, run.arms[i]), instance.rewards());
    sums[i] = rewards.sum_of(run.pulls(i), stream);
  }
}

}  // namespace

void explore_aggregated(const model::Instance& instance, std::size_t client, pcg32& stream,
                        const Run& run, std::span<double> sums) {
  families::with_exact_sums(instance.rewards(), [&]<class Rewards>(std::type_identity<Rewards>) {
    sum_each_arm<Rewards>(instance, client, stream, run, sums);
  });
}

}  // namespace pfmab::sim
