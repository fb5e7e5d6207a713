// One replication of each UCB baseline against its kl-UCB version
// (local-ucb / local-kl-ucb, centralized-ucb / centralized-kl-ucb), on one
// thread, measured in one run: what kl-UCB's indices cost per slot
// (bench/README.md, "kl-UCB baselines"). The time per replication over T is
// the cost of a slot of all M clients; items count client-slots.

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>

#include <benchmark/benchmark.h>
#include <oneapi/tbb/task_arena.h>

#include "pfmab/algorithms/baselines.hpp"
#include "pfmab/algorithms/kl_ucb.hpp"
#include "pfmab/families/family.hpp"
#include "pfmab/model/instance.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/replication.hpp"

#include "random_game.hpp"

namespace {

pfmab::sim::AlgorithmChoice algorithm_named(std::string_view name) {
  if (name == "local-ucb") return pfmab::algorithms::local_ucb();
  if (name == "local-kl-ucb") return pfmab::algorithms::local_kl_ucb();
  if (name == "centralized-ucb") return pfmab::algorithms::centralized_ucb();
  return pfmab::algorithms::centralized_kl_ucb();
}

// Replications 0, 1, 2, ... of seed 1 of a cell at alpha = 0.5, one per
// iteration, on the calling thread alone.
void replications(benchmark::State& state, std::shared_ptr<const pfmab::model::Instance> instance,
                  std::string_view algorithm, std::uint64_t horizon) {
  pfmab::sim::CellSpec spec;
  spec.algorithm = algorithm_named(algorithm);
  spec.alpha = 0.5;
  spec.horizon = horizon;
  spec.instance = std::move(instance);
  const pfmab::sim::Cell cell(spec, 0);
  tbb::task_arena arena(1);
  std::uint64_t next = 0;
  for (auto _ : state) {
    pfmab::sim::ReplicationResult result;
    arena.execute([&] { result = pfmab::sim::run_replication(cell, 1, next++); });
    benchmark::DoNotOptimize(std::as_const(result));
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(horizon * cell.instance().clients()));
}

// The paper's synthetic game (M = 4, K = 9), T = 1e5.
void BM_Synthetic(benchmark::State& state, std::string_view algorithm, std::string_view family) {
  const auto table = pfmab::model::read_means_csv(PFMAB_SHARED_DATA "/synthetic_4x9.csv");
  replications(
      state,
      std::make_shared<const pfmab::model::Instance>(table, pfmab::families::RewardFamily{family}),
      algorithm, 100'000);
}

// M = 20 clients, K = 10 arms (bench/random_game.hpp, Gaussian rewards),
// T = 1e4: the centralized solve's cost grows as M^2 K per slot.
void BM_Random20x10(benchmark::State& state, std::string_view algorithm) {
  replications(state,
               std::make_shared<const pfmab::model::Instance>(pfmab::bench::random_game(20, 10, 1)),
               algorithm, 10'000);
}

#define PFMAB_SYNTHETIC(name, algorithm, family)                             \
  BENCHMARK_CAPTURE(BM_Synthetic, name, std::string_view(algorithm), family) \
      ->Unit(benchmark::kMillisecond)                                        \
      ->UseRealTime()
PFMAB_SYNTHETIC(local_ucb_gaussian, "local-ucb", "gaussian");
PFMAB_SYNTHETIC(local_kl_ucb_gaussian, "local-kl-ucb", "gaussian");
PFMAB_SYNTHETIC(local_ucb_bernoulli, "local-ucb", "bernoulli");
PFMAB_SYNTHETIC(local_kl_ucb_bernoulli, "local-kl-ucb", "bernoulli");
PFMAB_SYNTHETIC(centralized_ucb_gaussian, "centralized-ucb", "gaussian");
PFMAB_SYNTHETIC(centralized_kl_ucb_gaussian, "centralized-kl-ucb", "gaussian");
PFMAB_SYNTHETIC(centralized_ucb_bernoulli, "centralized-ucb", "bernoulli");
PFMAB_SYNTHETIC(centralized_kl_ucb_bernoulli, "centralized-kl-ucb", "bernoulli");
#undef PFMAB_SYNTHETIC
BENCHMARK_CAPTURE(BM_Random20x10, centralized_ucb, std::string_view("centralized-ucb"))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Random20x10, centralized_kl_ucb, std::string_view("centralized-kl-ucb"))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
