// The engine's cost per exploration pull against the cost of one raw draw of
// the same reward distribution from pcg32, and the aggregated mode's cost per
// replication against T and against per-pull, measured in one run
// (bench/README.md records the figures and their ratios). Every benchmark
// counts one item per reward drawn (or represented, aggregated), so
// items_per_second and per_pull compare across all of them.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <boost/random/student_t_distribution.hpp>
#include <oneapi/tbb/task_arena.h>
#include <pcg_random.hpp>

#include "pfmab/algorithms/baselines.hpp"
#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/algorithms/thompson.hpp"
#include "pfmab/families/family.hpp"
#include "pfmab/families/registry.hpp"
#include "pfmab/io/experiment.hpp"
#include "pfmab/model/instance.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/rng/samplers.hpp"
#include "pfmab/rng/streams.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/exploration.hpp"
#include "pfmab/sim/replication.hpp"
#include "pfmab/sim/trajectory.hpp"

#include "random_game.hpp"

namespace {

// Draws per iteration of a raw-draw benchmark: enough that the loop and the
// optimisation barrier at its end cost nothing per draw, as the engine's
// rounds-long inner loop amortises its own set-up.
constexpr std::int64_t kDrawsPerIteration = 1000;

// The synthetic game of the paper's Fig. 1 (M = 4, K = 9, means in [0, 1]),
// read in place from ../shared/data.
const pfmab::model::MeansTable& synthetic_means() {
  static const auto table = pfmab::model::read_means_csv(PFMAB_SHARED_DATA "/synthetic_4x9.csv");
  return table;
}

std::shared_ptr<const pfmab::model::Instance> synthetic_instance(std::string_view family) {
  return std::make_shared<const pfmab::model::Instance>(synthetic_means(),
                                                        pfmab::families::RewardFamily{family});
}

// The synthetic game with its zero means raised to 0.05, for the families
// beyond the paper's (the exponential's means are positive); arm 9 of
// client 1 keeps its mean 0.5.
std::shared_ptr<const pfmab::model::Instance> positive_instance(std::string_view family) {
  auto table = synthetic_means();
  for (auto& row : table.rows) {
    for (auto& mu : row) mu = std::max(mu, 0.05);
  }
  return std::make_shared<const pfmab::model::Instance>(table,
                                                        pfmab::families::RewardFamily{family});
}

// Reports the time per reward drawn, printed as e.g. "3.2ns".
void count_pulls(benchmark::State& state, std::int64_t pulls) {
  state.SetItemsProcessed(pulls);
  state.counters["per_pull"] = benchmark::Counter(
      static_cast<double>(pulls), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

//------------------------------------------------------------------------------
// Raw draws: one reward from a pcg32, summed, with nothing else around it
//------------------------------------------------------------------------------

// Arm 9 of client 1, mean 0.5. The mean and sigma are read from the instance
// at run time, so the compiler cannot fold them. (Laundering a constant
// through DoNotOptimize(double&) instead is miscompiled by GCC 12 with
// Benchmark 1.7.1's "+m,r" constraint: the initialising store is dropped and
// the loop runs on stack garbage, as in google/benchmark#903. Hence
// also the const overload, std::as_const, on every double observed here.)
constexpr std::size_t kArm = 8;

// X = mu + sigma Z, Z by Boost's ziggurat (pfmab::rng::UnitNormal).
void BM_RawDraw_Gaussian(benchmark::State& state) {
  const auto instance = synthetic_instance("gaussian");
  const double mu = instance->local_mean(0, kArm), sigma = instance->rewards().value("sigma");
  pcg32 rng = pfmab::rng::make_stream({1, 0, 0, 0});
  pfmab::rng::UnitNormal normal;
  double sum = 0.0;
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kDrawsPerIteration; ++i) sum += mu + sigma * normal(rng);
    benchmark::DoNotOptimize(std::as_const(sum));  // every draw feeds a value that must exist
  }
  count_pulls(state, state.iterations() * kDrawsPerIteration);
}
BENCHMARK(BM_RawDraw_Gaussian)->UseRealTime();

// Bernoulli(mu) as the engine draws it: one 32-bit draw against a threshold.
void BM_RawDraw_Bernoulli(benchmark::State& state) {
  const auto instance = synthetic_instance("bernoulli");
  const std::uint64_t threshold = pfmab::rng::bernoulli_threshold(instance->local_mean(0, kArm));
  pcg32 rng = pfmab::rng::make_stream({1, 0, 0, 0});
  std::uint64_t successes = 0;
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kDrawsPerIteration; ++i)
      successes += std::uint64_t{rng()} < threshold;
    benchmark::DoNotOptimize(std::as_const(successes));
  }
  count_pulls(state, state.iterations() * kDrawsPerIteration);
}
BENCHMARK(BM_RawDraw_Bernoulli)->UseRealTime();

// For context: the standard library's normal (Marsaglia polar in libstdc++).
void BM_RawDraw_StdNormal(benchmark::State& state) {
  const auto instance = synthetic_instance("gaussian");
  const double mu = instance->local_mean(0, kArm), sigma = instance->rewards().value("sigma");
  pcg32 rng = pfmab::rng::make_stream({1, 0, 0, 0});
  std::normal_distribution<double> normal(0.0, 1.0);
  double sum = 0.0;
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kDrawsPerIteration; ++i) sum += mu + sigma * normal(rng);
    benchmark::DoNotOptimize(std::as_const(sum));
  }
  count_pulls(state, state.iterations() * kDrawsPerIteration);
}
BENCHMARK(BM_RawDraw_StdNormal)->UseRealTime();

// The other families' laws drawn by their own samplers with nothing around
// them: Boost's Poisson (inversion below mean 10) on 64-bit draws, as the
// engine feeds it; the exponential ziggurat; Boost's Student-t (a normal
// over the root of its chi-squared, by Boost's gamma_distribution), nu = 3.
void BM_RawDraw_Poisson(benchmark::State& state) {
  const auto instance = positive_instance("poisson");
  const boost::random::poisson_distribution<std::int64_t, double> poisson(
      instance->local_mean(0, kArm));
  pcg32 rng = pfmab::rng::make_stream({1, 0, 0, 0});
  std::int64_t sum = 0;
  for (auto _ : state) {
    pfmab::rng::Wide64 wide(rng);
    for (std::int64_t i = 0; i < kDrawsPerIteration; ++i) sum += poisson(wide);
    benchmark::DoNotOptimize(std::as_const(sum));
  }
  count_pulls(state, state.iterations() * kDrawsPerIteration);
}
BENCHMARK(BM_RawDraw_Poisson)->UseRealTime();

void BM_RawDraw_Exponential(benchmark::State& state) {
  const auto instance = positive_instance("exponential");
  const double mu = instance->local_mean(0, kArm);
  pcg32 rng = pfmab::rng::make_stream({1, 0, 0, 0});
  pfmab::rng::UnitExponential exponential;
  double sum = 0.0;
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kDrawsPerIteration; ++i) sum += mu * exponential(rng);
    benchmark::DoNotOptimize(std::as_const(sum));
  }
  count_pulls(state, state.iterations() * kDrawsPerIteration);
}
BENCHMARK(BM_RawDraw_Exponential)->UseRealTime();

void BM_RawDraw_StudentT(benchmark::State& state) {
  const auto instance = positive_instance("student-t");
  const double mu = instance->local_mean(0, kArm);
  boost::random::student_t_distribution<double> student(instance->rewards().value("nu"));
  pcg32 rng = pfmab::rng::make_stream({1, 0, 0, 0});
  double sum = 0.0;
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kDrawsPerIteration; ++i) sum += mu + student(rng);
    benchmark::DoNotOptimize(std::as_const(sum));
  }
  count_pulls(state, state.iterations() * kDrawsPerIteration);
}
BENCHMARK(BM_RawDraw_StudentT)->UseRealTime();

// One reward by the family's Sampler::draw (the per-pull waiting's and the
// baselines' draw), built once, as those build it per arm.
template <class Family>
void BM_SamplerDraw(benchmark::State& state) {
  const auto instance = positive_instance(Family::name);
  const typename Family::Sampler rewards(instance->local_mean(0, kArm), instance->rewards());
  pcg32 rng = pfmab::rng::make_stream({1, 0, 0, 0});
  double sum = 0.0;
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kDrawsPerIteration; ++i) sum += rewards.draw(rng);
    benchmark::DoNotOptimize(std::as_const(sum));
  }
  count_pulls(state, state.iterations() * kDrawsPerIteration);
}
BENCHMARK_TEMPLATE(BM_SamplerDraw, pfmab::families::Gaussian)->UseRealTime();
BENCHMARK_TEMPLATE(BM_SamplerDraw, pfmab::families::Bernoulli)->UseRealTime();
BENCHMARK_TEMPLATE(BM_SamplerDraw, pfmab::families::Poisson)->UseRealTime();
BENCHMARK_TEMPLATE(BM_SamplerDraw, pfmab::families::Exponential)->UseRealTime();
BENCHMARK_TEMPLATE(BM_SamplerDraw, pfmab::families::StudentT)->UseRealTime();

// The aggregated mode's draw: the sum of a run of n = state.range(0) pulls
// by sum_of, the sampler built for each, as the aggregated exploration
// builds one per arm and run. Reports the time per sum ("per_sum"), to set
// against one raw draw. Families without exact sums have none to time.
template <class Family>
void BM_SumOf(benchmark::State& state) {
  const auto instance = positive_instance(Family::name);
  const double mu = instance->local_mean(0, kArm);
  const auto n = static_cast<std::uint64_t>(state.range(0));
  pcg32 rng = pfmab::rng::make_stream({1, 0, 0, 0});
  double sum = 0.0;
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kDrawsPerIteration; ++i) {
      const typename Family::Sampler rewards(mu, instance->rewards());
      sum += rewards.sum_of(n, rng);
    }
    benchmark::DoNotOptimize(std::as_const(sum));
  }
  state.counters["per_sum"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kDrawsPerIteration),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
// n = 16, about a phase-1 run; 2^20, a late phase's; 2^40, beyond what PTRD
// draws for Poisson (the normal quantile).
void sum_lengths(benchmark::internal::Benchmark* b) {
  b->ArgName("n")->Arg(16)->Arg(1 << 20)->Arg(std::int64_t{1} << 40)->UseRealTime();
}
BENCHMARK_TEMPLATE(BM_SumOf, pfmab::families::Gaussian)->Apply(sum_lengths);
BENCHMARK_TEMPLATE(BM_SumOf, pfmab::families::Bernoulli)->Apply(sum_lengths);
BENCHMARK_TEMPLATE(BM_SumOf, pfmab::families::Poisson)->Apply(sum_lengths);
BENCHMARK_TEMPLATE(BM_SumOf, pfmab::families::Exponential)->Apply(sum_lengths);

//------------------------------------------------------------------------------
// The exploration kernel: client 1 (index 0) pulls all K = 9 arms round robin
//------------------------------------------------------------------------------

void explore_per_pull(benchmark::State& state,
                      const std::shared_ptr<const pfmab::model::Instance>& instance) {
  std::vector<std::uint32_t> arms(instance->arms());
  std::iota(arms.begin(), arms.end(), 0U);
  pfmab::sim::Run run;
  run.arms = arms;
  run.rounds = static_cast<std::uint64_t>(state.range(0));
  pcg32 stream = pfmab::rng::make_stream({1, 0, 0, 0});
  std::vector<double> sums(arms.size());
  for (auto _ : state) {
    pfmab::sim::explore_per_pull(*instance, 0, stream, run, sums);
    benchmark::DoNotOptimize(sums.data());
    benchmark::ClobberMemory();  // the sums are written, and read, every iteration
  }
  count_pulls(state, state.iterations() * static_cast<std::int64_t>(run.slots()));
}

void BM_ExplorePerPull_Gaussian(benchmark::State& state) {
  explore_per_pull(state, synthetic_instance("gaussian"));
}
void BM_ExplorePerPull_Bernoulli(benchmark::State& state) {
  explore_per_pull(state, synthetic_instance("bernoulli"));
}
void BM_ExplorePerPull_Poisson(benchmark::State& state) {
  explore_per_pull(state, positive_instance("poisson"));
}
void BM_ExplorePerPull_Exponential(benchmark::State& state) {
  explore_per_pull(state, positive_instance("exponential"));
}
void BM_ExplorePerPull_StudentT(benchmark::State& state) {
  explore_per_pull(state, positive_instance("student-t"));
}
// rounds = 1000: the kernel at its best; rounds = 16: about a phase-1 run
// (n_g(1) = ceil(0.5 * 2 log 1e6) = 14), where its set-up shows.
BENCHMARK(BM_ExplorePerPull_Gaussian)->ArgName("rounds")->Arg(1000)->Arg(16)->UseRealTime();
BENCHMARK(BM_ExplorePerPull_Bernoulli)->ArgName("rounds")->Arg(1000)->Arg(16)->UseRealTime();
BENCHMARK(BM_ExplorePerPull_Poisson)->ArgName("rounds")->Arg(1000)->UseRealTime();
BENCHMARK(BM_ExplorePerPull_Exponential)->ArgName("rounds")->Arg(1000)->UseRealTime();
BENCHMARK(BM_ExplorePerPull_StudentT)->ArgName("rounds")->Arg(1000)->UseRealTime();

//------------------------------------------------------------------------------
// A whole replication: synthetic game, alpha = 0.5, T = 1e6, C = 1
//------------------------------------------------------------------------------

// Runs replications 0, 1, 2, ... of seed 1 of `cell`, one per iteration, on
// the calling thread alone (run_replication's task_group in a one-slot
// arena); counts the rewards they represent and their phases.
void replications(benchmark::State& state, const pfmab::sim::Cell& cell) {
  tbb::task_arena arena(1);
  std::uint64_t next = 0;
  std::int64_t pulls = 0, phases = 0;
  for (auto _ : state) {
    pfmab::sim::ReplicationResult result;
    arena.execute([&] { result = pfmab::sim::run_replication(cell, 1, next++); });
    pulls += static_cast<std::int64_t>(result.exploration_pulls);
    phases += static_cast<std::int64_t>(result.phases);
    benchmark::DoNotOptimize(std::as_const(result));
  }
  state.counters["pulls"] =
      benchmark::Counter(static_cast<double>(pulls), benchmark::Counter::kAvgIterations);
  state.counters["phases"] =
      benchmark::Counter(static_cast<double>(phases), benchmark::Counter::kAvgIterations);
  count_pulls(state, pulls);
}

pfmab::sim::Cell synthetic_cell(std::string_view family, std::uint64_t horizon,
                                pfmab::sim::Fidelity fidelity) {
  pfmab::sim::CellSpec spec;
  spec.algorithm = pfmab::algorithms::pf_ucb();
  spec.instance = synthetic_instance(family);
  spec.alpha = 0.5;
  spec.horizon = horizon;
  spec.fidelity = fidelity;
  spec.instance_name = "synthetic_4x9.csv";
  return pfmab::sim::Cell(spec, 0);
}

// Per pull: everything a replication costs (tasks per client and phase,
// barriers, the trajectory's accounting, the elimination rule) divided by the
// rewards it draws: per_pull compares with the raw draw.
void BM_Replication_Gaussian(benchmark::State& state) {
  replications(state, synthetic_cell("gaussian", 1'000'000, pfmab::sim::Fidelity::per_pull));
}
void BM_Replication_Bernoulli(benchmark::State& state) {
  replications(state, synthetic_cell("bernoulli", 1'000'000, pfmab::sim::Fidelity::per_pull));
}
BENCHMARK(BM_Replication_Gaussian)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Replication_Bernoulli)->Unit(benchmark::kMillisecond)->UseRealTime();

//------------------------------------------------------------------------------
// Aggregated replications: the time of one, against T and against per-pull
//------------------------------------------------------------------------------

// The same cell as BM_Replication_*, aggregated, at T = state.range(0): one
// draw per arm and exploration run, so the time per replication (the Time
// column) should not grow with T. per_pull here is time / rewards represented.
void BM_Aggregated_Gaussian(benchmark::State& state) {
  replications(state, synthetic_cell("gaussian", static_cast<std::uint64_t>(state.range(0)),
                                     pfmab::sim::Fidelity::aggregated));
}
void BM_Aggregated_Bernoulli(benchmark::State& state) {
  replications(state, synthetic_cell("bernoulli", static_cast<std::uint64_t>(state.range(0)),
                                     pfmab::sim::Fidelity::aggregated));
}
// T = 1e6 and T = 1e12: the goal is within 3x of each other.
void horizons(benchmark::internal::Benchmark* b) {
  b->ArgName("T")->Arg(1'000'000)->Arg(1'000'000'000'000)->Unit(benchmark::kMicrosecond);
  b->UseRealTime();
}
BENCHMARK(BM_Aggregated_Gaussian)->Apply(horizons);
BENCHMARK(BM_Aggregated_Bernoulli)->Apply(horizons);

// The paper's MovieLens instance (M = 10, K = 40, Figs. 2-3), Gaussian
// rewards, alpha = 0.5, T = 2e7, aggregated; per pull it draws about 5e7
// rewards per replication.
void BM_Aggregated_MovieLens(benchmark::State& state) {
  pfmab::sim::CellSpec spec;
  spec.algorithm = pfmab::algorithms::pf_ucb();
  spec.instance = std::make_shared<const pfmab::model::Instance>(
      pfmab::model::read_means_csv(PFMAB_SHARED_DATA "/movielens_10x40.csv"),
      pfmab::families::RewardFamily{});
  spec.alpha = 0.5;
  spec.horizon = 20'000'000;
  spec.fidelity = pfmab::sim::Fidelity::aggregated;
  replications(state, pfmab::sim::Cell(spec, 0));
}
BENCHMARK(BM_Aggregated_MovieLens)->Unit(benchmark::kMicrosecond)->UseRealTime();

//------------------------------------------------------------------------------
// The authors'-code preset: its waiting reads every reward
//------------------------------------------------------------------------------

// The synthetic cell under the authors' rules (c_B = 1), Gaussian rewards, T =
// 1e6, in each mode (range(0): 0 per pull, 1 aggregated). Per pull, every
// waiting reward is drawn and the argmax taken after it; aggregated, the
// waiting is drawn by exact first passages, a few draws per change of arm.
void BM_AuthorsCode_Gaussian(benchmark::State& state) {
  pfmab::sim::CellSpec spec;
  spec.instance = synthetic_instance("gaussian");
  spec.alpha = 0.5;
  spec.horizon = 1'000'000;
  pfmab::algorithms::PfUcbParams authors;
  authors.rule.confidence_constant = 1.0;
  authors.preset = pfmab::algorithms::Preset::authors_code;
  spec.algorithm = pfmab::algorithms::pf_ucb(authors);
  spec.fidelity =
      state.range(0) == 0 ? pfmab::sim::Fidelity::per_pull : pfmab::sim::Fidelity::aggregated;
  replications(state, pfmab::sim::Cell(spec, 0));
}
BENCHMARK(BM_AuthorsCode_Gaussian)
    ->ArgName("aggregated")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

//------------------------------------------------------------------------------
// The enhanced lengths against the plain ones as the clients grow
//------------------------------------------------------------------------------

// PF-UCB (range(0) = 0) or pf-ucb-enhanced (1) on a random game of range(1)
// clients and 10 arms (bench/random_game.hpp, seed 5), alpha = 0.5, T = 1e6,
// aggregated. The enhanced length factor of a client and arm sums a root
// over every client: summed once per phase and arm since issue 26, not once
// per client and arm, so the ratio of the two no longer grows with M.
void BM_PfUcbLengths_Clients(benchmark::State& state) {
  const auto clients = static_cast<std::size_t>(state.range(1));
  pfmab::sim::CellSpec spec;
  spec.instance =
      std::make_shared<const pfmab::model::Instance>(pfmab::bench::random_game(clients, 10, 5));
  spec.alpha = 0.5;
  spec.horizon = 1'000'000;
  pfmab::algorithms::PfUcbParams params;
  params.enhanced = state.range(0) == 1;
  spec.algorithm = pfmab::algorithms::pf_ucb(params);
  spec.fidelity = pfmab::sim::Fidelity::aggregated;
  replications(state, pfmab::sim::Cell(spec, 0));
}
BENCHMARK(BM_PfUcbLengths_Clients)
    ->ArgNames({"enhanced", "clients"})
    ->ArgsProduct({{0, 1}, {4, 100, 1000}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

//------------------------------------------------------------------------------
// pf-alloc (docs/pf-alloc.md): aggregated replications, whose cost beyond
// the draws is the allocation the server solves every phase
//------------------------------------------------------------------------------

// pf-alloc on `game` at alpha = 0.5 and T = `horizon`, aggregated, with its
// options' defaults, configured as an experiment configures it.
pfmab::sim::Cell pf_alloc_cell(std::shared_ptr<const pfmab::model::Instance> game,
                               std::uint64_t horizon) {
  using pfmab::io::flag_values;
  auto spec = pfmab::io::load_experiment(
                  std::nullopt,
                  {flag_values("instance.means", PFMAB_SHARED_DATA "/synthetic_4x9.csv"),
                   flag_values("algorithm.name", "pf-alloc"), flag_values("alpha", "0.5"),
                   flag_values("horizon", std::to_string(horizon))})
                  .cells.at(0)
                  .spec();
  spec.instance = std::move(game);
  return pfmab::sim::Cell(spec, 0);
}

// The synthetic game, T = 1e6 and 1e12: about 12 and 20 phases (doubling
// until the estimates carry further, docs/pf-alloc.md "Communication").
void BM_PfAlloc_Synthetic(benchmark::State& state) {
  replications(state, pf_alloc_cell(synthetic_instance("gaussian"),
                                    static_cast<std::uint64_t>(state.range(0))));
}
BENCHMARK(BM_PfAlloc_Synthetic)->Apply(horizons);

// M = 200 clients, K = 50 arms (bench/random_game.hpp, seed 3), T = 1e6:
// the size the re-planning rule (docs/pf-alloc.md, rule 9) was measured on
// beside the two around it.
void BM_PfAlloc_Random200x50(benchmark::State& state) {
  static const auto game =
      std::make_shared<const pfmab::model::Instance>(pfmab::bench::random_game(200, 50, 3));
  replications(state, pf_alloc_cell(game, 1'000'000));
}
BENCHMARK(BM_PfAlloc_Random200x50)->Iterations(4)->Unit(benchmark::kMillisecond)->UseRealTime();

// M = 1000 clients, K = 50 arms (bench/random_game.hpp, seed 3), T = 1e6:
// phase 1 of K n0 = 1000 slots, at most 10 phases, each a solve of 49,000
// constraints.
void BM_PfAlloc_Random1000x50(benchmark::State& state) {
  static const auto game =
      std::make_shared<const pfmab::model::Instance>(pfmab::bench::random_game(1000, 50, 3));
  replications(state, pf_alloc_cell(game, 1'000'000));
}
BENCHMARK(BM_PfAlloc_Random1000x50)->Iterations(2)->Unit(benchmark::kSecond)->UseRealTime();

//------------------------------------------------------------------------------
// The slot-by-slot baselines: UCB against Thompson sampling (issue 27, item 5)
//------------------------------------------------------------------------------

// One posterior draw of the family's mean after n = 1000 rewards of sum 500
// (a mean of 0.5): Thompson sampling makes K of them per client and slot.
template <class Family>
void BM_PosteriorDraw(benchmark::State& state) {
  const typename Family::Posterior posterior(pfmab::families::RewardFamily{Family::name});
  pcg32 rng = pfmab::rng::make_stream({1, 0, 0, 0});
  const auto n = static_cast<std::uint64_t>(state.range(0));
  const double sum = 0.5 * static_cast<double>(n);
  double total = 0.0;
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kDrawsPerIteration; ++i) total += posterior.draw(n, sum, rng);
    benchmark::DoNotOptimize(std::as_const(total));
  }
  count_pulls(state, state.iterations() * kDrawsPerIteration);
}
BENCHMARK_TEMPLATE(BM_PosteriorDraw, pfmab::families::Gaussian)->Arg(1000)->UseRealTime();
BENCHMARK_TEMPLATE(BM_PosteriorDraw, pfmab::families::Bernoulli)->Arg(1000)->UseRealTime();
BENCHMARK_TEMPLATE(BM_PosteriorDraw, pfmab::families::Poisson)->Arg(1000)->UseRealTime();
BENCHMARK_TEMPLATE(BM_PosteriorDraw, pfmab::families::Exponential)->Arg(1000)->UseRealTime();

// One replication of a baseline on the synthetic game (the positive one for
// every family but Gaussian, as above), alpha = 0.5, T = 1e5, on one
// thread; per_pull is its time over the M T rewards it draws.
void BM_Baseline(benchmark::State& state, pfmab::sim::AlgorithmChoice (*algorithm)(),
                 std::string_view family) {
  pfmab::sim::CellSpec spec;
  spec.algorithm = algorithm();
  spec.instance = family == "gaussian" ? synthetic_instance(family) : positive_instance(family);
  spec.alpha = 0.5;
  spec.horizon = 100'000;
  replications(state, pfmab::sim::Cell(spec, 0));
}
#define PFMAB_BASELINE(algorithm, family)                                                     \
  BENCHMARK_CAPTURE(BM_Baseline, algorithm##_##family, pfmab::algorithms::algorithm, #family) \
      ->Unit(benchmark::kMillisecond)                                                         \
      ->UseRealTime()
PFMAB_BASELINE(local_ucb, gaussian);
PFMAB_BASELINE(local_thompson, gaussian);
PFMAB_BASELINE(local_ucb, bernoulli);
PFMAB_BASELINE(local_thompson, bernoulli);
PFMAB_BASELINE(centralized_ucb, gaussian);
PFMAB_BASELINE(centralized_thompson, gaussian);
PFMAB_BASELINE(centralized_ucb, bernoulli);
PFMAB_BASELINE(centralized_thompson, bernoulli);
PFMAB_BASELINE(local_thompson, poisson);
PFMAB_BASELINE(local_thompson, exponential);
#undef PFMAB_BASELINE

}  // namespace

BENCHMARK_MAIN();
