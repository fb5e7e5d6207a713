// What solving for C* costs (theory::optimal_allocation, docs/allocation.md):
// the paper's synthetic game (M = 4, K = 9) at each alpha of Fig. 1, and a
// random game of M = 1000 clients and K = 50 arms (means uniform on [0, 1],
// seed 3) at alpha 0.5. Counters: `newton_steps` and the certified `gap`.

#include <benchmark/benchmark.h>

#include "pfmab/model/instance.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/theory/allocation.hpp"

#include "random_game.hpp"

namespace {

using namespace pfmab;

void solve(benchmark::State& state, const model::Instance& game, double alpha) {
  const model::MixedModel mixed(game, alpha);
  theory::OptimalAllocation solved;
  for (auto _ : state) {
    solved = theory::optimal_allocation(mixed, 1.0);
    benchmark::DoNotOptimize(solved.constant);
  }
  state.counters["newton_steps"] = solved.newton_steps;
  state.counters["gap"] = solved.gap;
  state.counters["c_star"] = solved.constant;
}

void BM_Allocation_Synthetic(benchmark::State& state) {
  static const model::Instance game(model::read_means_csv(PFMAB_SHARED_DATA "/synthetic_4x9.csv"),
                                    {});
  solve(state, game, static_cast<double>(state.range(0)) / 10.0);
}
BENCHMARK(BM_Allocation_Synthetic)
    ->ArgName("alpha_x10")
    ->Arg(0)
    ->Arg(2)
    ->Arg(5)
    ->Arg(9)
    ->Arg(10)
    ->Unit(benchmark::kMillisecond);

void BM_Allocation_Random1000x50(benchmark::State& state) {
  static const model::Instance game = bench::random_game(1000, 50, 3);
  solve(state, game, 0.5);
}
BENCHMARK(BM_Allocation_Random1000x50)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
