// What solving for C* costs (theory::optimal_allocation, docs/allocation.md):
// the paper's synthetic game (M = 4, K = 9) at each alpha of Fig. 1, and a
// random game of M = 1000 clients and K = 50 arms (means uniform on [0, 1],
// seed 3) at alpha 0.5. Counters: `newton_steps` and the certified `gap`.
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "pfmab/model/instance.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/theory/allocation.hpp"

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
  static const model::Instance game = [] {
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> mean(0.0, 1.0);
    model::MeansTable table;
    table.rows.assign(1000, std::vector<double>(50));
    for (auto& row : table.rows) {
      for (auto& x : row) x = mean(rng);
    }
    table.row_origin.assign(1000, "random");
    return model::Instance(table, {});
  }();
  solve(state, game, 0.5);
}
BENCHMARK(BM_Allocation_Random1000x50)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
