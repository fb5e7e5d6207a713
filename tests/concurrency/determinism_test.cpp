// Concurrency: the lock-free barrier, bit-identical results at any thread
// count, and a thousand clients on two threads. Also run under the tsan preset.
#include <atomic>
#include <filesystem>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/io/experiment.hpp"
#include "pfmab/io/results_file.hpp"
#include "pfmab/io/writer_thread.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/sim/barrier.hpp"
#include "pfmab/sim/runner.hpp"

#include "run_cli.hpp"

namespace pfmab::sim {
namespace {

TEST(LastArrivalBarrier, ExactlyOneWinnerPerRoundSeesEveryWrite) {
  constexpr std::size_t parties = 64, rounds = 200;
  LastArrivalBarrier barrier(parties);
  std::vector<std::uint64_t> slots(parties, 0);  // plain writes, published by the barrier
  std::vector<std::uint64_t> seen_sums;
  const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 4);
  tbb::task_arena arena(4);
  arena.execute([&] {
    tbb::task_group tasks;
    // each round's winner checks every party's write and starts the next round
    std::function<void(std::size_t)> start_round = [&](std::size_t round) {
      for (std::size_t m = 0; m < parties; ++m) {
        tasks.run([&, m, round] {
          slots[m] = round * parties + m;
          if (!barrier.arrive()) return;
          std::uint64_t sum = 0;
          for (auto v : slots) sum += v;
          seen_sums.push_back(sum);
          if (round + 1 < rounds) start_round(round + 1);
        });
      }
    };
    start_round(0);
    tasks.wait();
  });
  ASSERT_EQ(seen_sums.size(), rounds);
  for (std::size_t r = 0; r < rounds; ++r) {
    EXPECT_EQ(seen_sums[r], r * parties * parties + parties * (parties - 1) / 2);
  }
}

std::vector<Cell> synthetic_cells(std::uint64_t horizon, Fidelity fidelity) {
  const auto table = model::read_means_csv(testing::shared_data("synthetic_4x9.csv"));
  const auto instance = std::make_shared<const model::Instance>(table, families::RewardFamily{});
  std::vector<Cell> cells;
  for (double alpha : {0.0, 0.5, 0.9}) {
    CellSpec spec;
    spec.algorithm = algorithms::pf_ucb();
    spec.instance = instance;
    spec.alpha = alpha;
    spec.horizon = horizon;
    spec.fidelity = fidelity;
    cells.emplace_back(spec, cells.size());
  }
  // PF-UCB's variants at alpha = 0.5: the authors' rules (waiting on every
  // reward inside the client tasks), the enhanced lengths (gap estimates
  // written by every client's task), partial participation (the server's
  // own stream, a barrier round of the participants only)
  CellSpec variant;
  variant.algorithm = algorithms::pf_ucb();
  variant.instance = instance;
  variant.alpha = 0.5;
  variant.horizon = horizon;
  variant.fidelity = fidelity;
  auto authors = variant;
  authors.algorithm = algorithms::pf_ucb(
      {.rule = {.confidence_constant = 1.0}, .preset = algorithms::Preset::authors_code});
  cells.emplace_back(authors, cells.size());
  auto enhanced = variant;
  enhanced.algorithm = algorithms::pf_ucb({.enhanced = true});
  cells.emplace_back(enhanced, cells.size());
  auto partial = variant;
  partial.participation.probability = 0.6;
  cells.emplace_back(partial, cells.size());
  return cells;
}

class Determinism : public ::testing::TestWithParam<Fidelity> {};

TEST_P(Determinism, SameDigestAtAnyThreadCount) {
  const auto cells = synthetic_cells(100'000, GetParam());
  RunOptions options;
  options.seed = 99;
  options.replications = 24;
  std::vector<std::string> digests;
  for (unsigned threads : {1u, 4u, 2u}) {  // non-monotone on purpose
    options.threads = threads;
    digests.push_back(digest_of(run_sweep(cells, options)));
  }
  EXPECT_EQ(digests[0], digests[1]);
  EXPECT_EQ(digests[0], digests[2]);
  options.seed = 100;
  EXPECT_NE(digest_of(run_sweep(cells, options)), digests[0]);
}

TEST_P(Determinism, ThousandClientsOnTwoThreadsComplete) {
  // M = 1000 client tasks per phase on 2 threads: with a blocking barrier this
  // would deadlock; with the last-arrival barrier it must finish.
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  model::MeansTable table;
  for (int m = 0; m < 1000; ++m) {
    table.rows.emplace_back();
    for (int k = 0; k < 5; ++k) table.rows.back().push_back(uniform(gen));
    table.row_origin.push_back("generated");
  }
  CellSpec spec;
  spec.algorithm = algorithms::pf_ucb();
  spec.instance = std::make_shared<const model::Instance>(table, families::RewardFamily{});
  spec.alpha = 0.5;
  spec.fidelity = GetParam();
  // Per pull, phase 1 takes 5 ceil(0.5 f) + 5 ceil(1000 * 0.5 f) = 57,625
  // slots with f = 2 log 1e5: one whole phase (57.6 M draws), the second is
  // cut. Aggregated, T = 1e9 costs no more and gives every phase to 1e9
  // (f = 2^p log T: about 14 phases, two barrier rounds of 1000 tasks each).
  const bool per_pull = GetParam() == Fidelity::per_pull;
  spec.horizon = per_pull ? 100'000 : 1'000'000'000;
  const std::vector<Cell> cells{Cell(spec, 0)};
  RunOptions options;
  options.replications = 2;
  options.threads = 2;
  const auto results = run_sweep(cells, options);
  ASSERT_EQ(results[0].size(), 2u);
  for (const auto& r : results[0]) {
    EXPECT_GE(r.phases, per_pull ? 1u : 10u);
    EXPECT_GT(r.exploration_pulls, 0u);
    EXPECT_EQ(r.fixed_arm.size(), 1000u);
  }
}

INSTANTIATE_TEST_SUITE_P(Mode, Determinism,
                         ::testing::Values(Fidelity::per_pull, Fidelity::aggregated),
                         [](const ::testing::TestParamInfo<Fidelity>& info) {
                           return info.param == Fidelity::per_pull ? "PerPull" : "Aggregated";
                         });

TEST(DeterminismStreamed, FileHoldsTheSameResultsAtAnyThreadCount) {
  // Results cross from the pipeline's workers to the writer's own thread; the
  // file must hold exactly the in-memory results, in order, every time.
  const auto experiment = io::load_experiment(
      std::nullopt, {io::flag_values("instance.means", testing::shared_data("synthetic_4x9.csv")),
                     io::flag_values("alpha", "0.2,0.9"), io::flag_values("horizon", "20000"),
                     // more than two 256-row chunks per cell
                     io::flag_values("replications", "600")});
  const auto& cells = experiment.cells;
  RunOptions options;
  options.seed = experiment.seed;
  options.replications = experiment.replications(0);
  options.threads = 2;
  const auto expected = digest_of(run_sweep(cells, options));

  const auto path = std::filesystem::temp_directory_path() / "pfmab-determinism-stream.h5";
  for (unsigned threads : {1u, 4u, 2u}) {
    std::filesystem::remove(path);
    options.threads = threads;
    {
      theory::Games games;
      io::ResultsWriter writer(path, experiment, cells, games, false);
      {
        io::WriterThread writing(writer);  // as pfmab run -o feeds it
        run_sweep(cells, options,
                  [&](std::size_t c, std::uint64_t, ReplicationResult&& r) { writing.push(c, r); });
        writing.finish();
      }
      writer.write_summaries();
    }
    const io::ResultsReader reader(path);
    std::vector<std::vector<ReplicationResult>> back;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      ASSERT_EQ(reader.cells()[c].done, experiment.replications(c));
      back.push_back(reader.read(c, 0, experiment.replications(c)));
    }
    EXPECT_EQ(digest_of(back), expected) << threads << " threads";
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace pfmab::sim
