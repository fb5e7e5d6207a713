// What solving for C* costs (theory::optimal_allocation, docs/allocation.md),
// one thread: the paper's synthetic game (M = 4, K = 9) at each alpha of
// Fig. 1 and its MovieLens matrix (M = 10, K = 40) at the alphas of Fig. 2;
// random games (bench/random_game.hpp, seed 3) at alpha 0.5 of the sizes
// issue 26 names (200 x 50, 1000 x 50, 2 x 300, 4 x 1000); and a sweep of
// sizes for the growth of the cost (K = 50 with M growing, M = 4 with K
// growing, M = K). Counters: `newton_steps`, the certified `gap`, `c_star`,
// and `per_var`, the time per variable (M (K - 1) of them).
//
// BM_KlAllocation_Synthetic: the same game through the generic solver for
// any family with a KL (theory::kl_optimal_allocation, to its default
// certified gap 1e-6), family 0 Gaussian (sigma 1, the closed-form solver's
// program), 1 Bernoulli, 2 Poisson (on the game's means mapped to 0.02 +
// 0.96 mu: a Poisson mean of 0 has a linear KL, which the solver handles
// slowly and does not certify, docs/allocation.md), 3 exponential (on the
// means 0.05 + mu: its KL is concave past 2 mu, where the program splits
// into branches); compare with BM_Allocation_Synthetic of the same run (bench/README.md, "C* with a
// family's KL"). The divergences are the reward families' own.
//
// A solve that runs past `--limit=SECONDS` (default 60) is stopped through
// its StopToken and reported as an error "n/a": the old solver does not end
// on the larger games in any useful time.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "pfmab/families/bernoulli.hpp"
#include "pfmab/families/exponential.hpp"
#include "pfmab/families/gaussian.hpp"
#include "pfmab/families/poisson.hpp"
#include "pfmab/model/instance.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/theory/allocation.hpp"
#include "pfmab/theory/kl_allocation.hpp"

#include "bench_main.hpp"
#include "random_game.hpp"

namespace {

using namespace pfmab;

double limit_seconds = 60.0;

// Requests a stop once `limit` has passed, unless destroyed first.
class Deadline {
 public:
  explicit Deadline(std::chrono::duration<double> limit)
      : watchdog_([this, limit](std::stop_token done) {
          std::mutex mutex;
          std::unique_lock lock(mutex);
          if (!std::condition_variable_any().wait_for(lock, done, limit, [] { return false; }) &&
              !done.stop_requested()) {
            flag_ = true;
          }
        }) {}
  StopToken token() const { return StopToken(&flag_); }

 private:
  std::atomic<bool> flag_{false};
  std::jthread watchdog_;
};

void solve(benchmark::State& state, const model::Instance& game, double alpha) {
  const model::MixedModel mixed(game, alpha);
  theory::OptimalAllocation solved;
  for (auto _ : state) {
    const Deadline deadline{std::chrono::duration<double>(limit_seconds)};
    try {
      solved = theory::optimal_allocation(mixed, 1.0, theory::Coupling::coupled,
                                          theory::kExactGap, deadline.token());
    } catch (const Interrupted&) {
      state.SkipWithError(("n/a: over " + std::to_string(limit_seconds) + " s").c_str());
      return;
    }
    benchmark::DoNotOptimize(solved.constant);
  }
  const double variables = static_cast<double>(game.clients() * (game.arms() - 1));
  state.counters["newton_steps"] = solved.newton_steps;
  state.counters["gap"] = solved.gap;
  state.counters["c_star"] = solved.constant;
  state.counters["per_var"] = benchmark::Counter(
      variables * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

const model::Instance& shared_game(const char* file) {
  static std::map<std::string, model::Instance> games;
  const auto at = games.find(file);
  if (at != games.end()) return at->second;
  return games
      .emplace(file, model::Instance(
                         model::read_means_csv(std::string(PFMAB_SHARED_DATA "/") + file), {}))
      .first->second;
}

const model::Instance& random_game(std::size_t clients, std::size_t arms) {
  static std::map<std::pair<std::size_t, std::size_t>, model::Instance> games;
  const auto key = std::pair{clients, arms};
  const auto at = games.find(key);
  if (at != games.end()) return at->second;
  return games.emplace(key, bench::random_game(clients, arms, 3)).first->second;
}

void BM_Allocation_Synthetic(benchmark::State& state) {
  solve(state, shared_game("synthetic_4x9.csv"), static_cast<double>(state.range(0)) / 10.0);
}

void BM_Allocation_MovieLens(benchmark::State& state) {
  solve(state, shared_game("movielens_10x40.csv"), static_cast<double>(state.range(0)) / 10.0);
}

void BM_Allocation_Random(benchmark::State& state) {
  const auto clients = static_cast<std::size_t>(state.range(0));
  const auto arms = static_cast<std::size_t>(state.range(1));
  solve(state, random_game(clients, arms), 0.5);
}

void BM_Allocation_Growth(benchmark::State& state) { BM_Allocation_Random(state); }

void BM_KlAllocation_Synthetic(benchmark::State& state) {
  static const families::Gaussian::Kl gaussian(1.0);
  static const families::Bernoulli::Kl bernoulli;
  static const families::Poisson::Kl poisson;
  static const families::Exponential::Kl exponential;
  const families::Divergence* divergences[] = {&gaussian, &bernoulli, &poisson, &exponential};
  const families::Divergence& kl = *divergences[state.range(0)];
  auto means = shared_game("synthetic_4x9.csv").local_means();
  std::vector<double> lifted(means.begin(), means.end());
  if (state.range(0) == 2) {
    for (auto& mu : lifted) mu = 0.02 + 0.96 * mu;
  }
  if (state.range(0) == 3) {
    for (auto& mu : lifted) mu += 0.05;
  }
  const model::MixedModel mixed(lifted, shared_game("synthetic_4x9.csv").clients(),
                                static_cast<double>(state.range(1)) / 10.0);
  theory::OptimalAllocation solved;
  for (auto _ : state) {
    solved = theory::kl_optimal_allocation(mixed, kl);
    benchmark::DoNotOptimize(solved.constant);
  }
  state.counters["newton_steps"] = solved.newton_steps;
  state.counters["gap"] = solved.gap;
  state.counters["c_star"] = solved.constant;
}

void register_all() {
  benchmark::RegisterBenchmark("BM_Allocation_Synthetic", BM_Allocation_Synthetic)
      ->ArgName("alpha_x10")
      ->Args({0})
      ->Args({2})
      ->Args({5})
      ->Args({9})
      ->Args({10})
      ->Unit(benchmark::kMillisecond);
  auto* kl = benchmark::RegisterBenchmark("BM_KlAllocation_Synthetic", BM_KlAllocation_Synthetic)
                 ->ArgNames({"family", "alpha_x10"})
                 ->Unit(benchmark::kMillisecond);
  for (const int family : {0, 1, 2, 3}) {
    for (const int alpha : {0, 2, 5, 9, 10}) kl->Args({family, alpha});
  }
  benchmark::RegisterBenchmark("BM_Allocation_MovieLens", BM_Allocation_MovieLens)
      ->ArgName("alpha_x10")
      ->Args({0})
      ->Args({1})
      ->Args({5})
      ->Args({9})
      ->Args({10})
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_Allocation_Random", BM_Allocation_Random)
      ->ArgNames({"M", "K"})
      ->Args({200, 50})
      ->Args({1000, 50})
      ->Args({2, 300})
      ->Args({4, 1000})
      ->Unit(benchmark::kMillisecond);
  auto* growth = benchmark::RegisterBenchmark("BM_Allocation_Growth", BM_Allocation_Growth);
  growth->ArgNames({"M", "K"})->Unit(benchmark::kMillisecond);
  for (const std::int64_t m : {25, 50, 100, 200, 400, 800, 1600, 3200}) growth->Args({m, 50});
  for (const std::int64_t k : {125, 250, 500, 1000, 2000, 4000, 8000}) growth->Args({4, k});
  for (const std::int64_t n : {25, 50, 100, 200, 400}) growth->Args({n, n});
}

bool never_failed = false;

}  // namespace

int main(int argc, char** argv) {
  return pfmab::bench::run_benchmarks(
      argc, argv, "pfmab_theory_bench",
      {{"--limit=",
        [](std::string_view value) -> std::string {
          limit_seconds = std::strtod(std::string(value).c_str(), nullptr);
          return limit_seconds > 0 ? "" : "--limit must be a positive number of seconds";
        }}},
      register_all, never_failed);
}
