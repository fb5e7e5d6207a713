// The library's run of an experiment in a one-rank world: its report is
// that of the sweep it runs, whatever the threads, and survives a stop and
// a resume through its output (the program's tests, tests/integration, run
// the same entry point through `pfmab run`, with signals and MPI).
#include "pfmab/run/run_experiment.hpp"

#include <atomic>
#include <filesystem>
#include <functional>
#include <span>

#include <gtest/gtest.h>

#include "pfmab/run/world.hpp"
#include "pfmab/sim/runner.hpp"
#include "pfmab/theory/allocation.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/stop_token.hpp"

#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace pfmab::run {
namespace {

// Two cells (alpha 0 and 1) of 20 short replications.
const io::Experiment& experiment() {
  static const io::Experiment made = io::load_experiment(
      std::nullopt, {io::flag_values("instance.means", testing::shared_data("synthetic_4x9.csv")),
                     io::flag_values("alpha", "0,1"), io::flag_values("horizon", "2000"),
                     io::flag_values("replications", "20"), io::flag_values("seed", "7")});
  return made;
}

Options on_threads(unsigned threads) {
  Options options;
  options.threads = threads;
  return options;
}

TEST(RunExperiment, ReportsTheDigestAndCellsOfItsSweep) {
  OneRank alone;
  const auto outcome = run_experiment(experiment(), on_threads(2), alone);
  ASSERT_TRUE(outcome.report);
  EXPECT_FALSE(outcome.stopped);
  sim::RunOptions same;
  same.seed = 7;
  same.replications = 20;
  EXPECT_EQ(outcome.report->digest, sim::digest_of(sim::run_sweep(experiment().cells, same)));
  EXPECT_EQ(outcome.report->seed, 7u);
  ASSERT_EQ(outcome.report->cells.size(), 2u);
  EXPECT_EQ(outcome.report->cells[1].alpha, 1.0);
  EXPECT_EQ(outcome.report->cells[1].regret.count, 20u);
  EXPECT_EQ(run_experiment(experiment(), on_threads(1), alone).report->digest,
            outcome.report->digest);
}

TEST(RunExperiment, AShardReportsItsShareOnly) {
  OneRank alone;
  auto options = on_threads(1);
  options.shard = {1, 4};  // replications [5, 10) of each cell
  const auto outcome = run_experiment(experiment(), options, alone);
  ASSERT_TRUE(outcome.report);
  EXPECT_EQ(outcome.report->cells[0].requested, 5u);
  EXPECT_EQ(outcome.report->cells[0].regret.count, 5u);
}

// Each game (local means, measured alpha, reward family) is solved for C*
// once per run, for the reports and the output alike, however many cells
// share it: 4 games (alpha 0 and 0.5, sigma 1 and 0.7) under 40 cells of
// three algorithms, two horizons and two costs. Each cell's C* is its game's
// as the solver gives it, and the digest is the sweep's. Bernoulli games are
// counted and never solved (C* is n/a for them).
TEST(RunExperiment, SolvesEachGamesCStarOncePerRun) {
  const testing::TempDir dir("run-games");
  const auto sweep = io::load_experiment(
      std::nullopt, {io::flag_values("instance.means", testing::shared_data("synthetic_4x9.csv")),
                     io::flag_values("alpha", "0,0.5"), io::flag_values("instance.sigma", "1,0.7"),
                     io::flag_values("algorithm.name", "pf-ucb,pf-ucb-enhanced,local-ucb"),
                     io::flag_values("horizon", "500,1000"), io::flag_values("comm_cost", "0.5,1"),
                     io::flag_values("replications", "2"), io::flag_values("seed", "3")});
  ASSERT_EQ(sweep.cells.size(), 40u);  // local-ucb is not crossed with C
  OneRank alone;
  auto options = on_threads(2);
  options.output = dir / "out.h5";
  const auto outcome = run_experiment(sweep, options, alone);
  ASSERT_TRUE(outcome.report);
  EXPECT_EQ(outcome.games, 4u);
  EXPECT_EQ(outcome.c_star_solves, 4u);
  for (std::size_t c = 0; c < sweep.cells.size(); ++c) {
    const auto& cell = sweep.cells[c];
    EXPECT_EQ(outcome.report->cells[c].bounds.c_star,
              theory::optimal_allocation(cell.measured(), cell.instance().rewards().value("sigma"))
                  .constant)
        << "cell " << c;
  }
  sim::RunOptions same;
  same.seed = 3;
  same.replications = 2;
  EXPECT_EQ(outcome.report->digest, sim::digest_of(sim::run_sweep(sweep.cells, same)));

  const auto bernoulli = io::load_experiment(
      std::nullopt,
      {io::flag_values("instance.means", testing::shared_data("synthetic_4x9.csv")),
       io::flag_values("instance.rewards", "bernoulli"), io::flag_values("alpha", "0,0.5"),
       io::flag_values("horizon", "500,1000"), io::flag_values("replications", "2")});
  const auto kl = run_experiment(bernoulli, on_threads(1), alone);
  EXPECT_EQ(kl.games, 2u);
  EXPECT_EQ(kl.c_star_solves, 2u);  // the KL program's, once per game as well
}

// Rank 1 of 2, whose share of the replications this test does not run: what
// run_experiment does on a rank other than the leader.
class Follower final : public World {
 public:
  int rank() const override { return 1; }
  int size() const override { return 2; }
  void on_every_rank(const std::function<void()>& step) override { step(); }
  void all_or_none(const std::function<void()>& step) override { step(); }
  void run(std::span<const sim::Cell>, const sim::RunOptions&, const sim::ResultSink&) override {}
};

// Only the leader reports and writes the output, so only it solves games:
// the other ranks of an MPI job solve none.
TEST(RunExperiment, ARankOtherThanTheLeaderSolvesNoGame) {
  Follower follower;
  const auto outcome = run_experiment(experiment(), on_threads(1), follower);
  EXPECT_FALSE(outcome.report);
  EXPECT_EQ(outcome.games, 0u);
  EXPECT_EQ(outcome.c_star_solves, 0u);
  OneRank alone;
  EXPECT_EQ(run_experiment(experiment(), on_threads(1), alone).c_star_solves, 2u);
}

TEST(RunExperiment, StoppedDuringItsSetUpItThrowsAndWritesNothing) {
  const testing::TempDir dir("run-experiment");
  OneRank alone;
  std::atomic<bool> stop{true};
  int started = 0;
  auto options = on_threads(2);
  options.output = dir / "out.h5";
  options.stop = &stop;
  options.on_start = [&] { ++started; };
  EXPECT_THROW(run_experiment(experiment(), options, alone), Interrupted);
  EXPECT_EQ(started, 0);
  EXPECT_TRUE(std::filesystem::is_empty(dir.dir())) << "no output, no temporary file";
}

TEST(RunExperiment, StoppedItKeepsWhatIsInTheOutputAndTheSameCallContinuesIt) {
  const testing::TempDir dir("run-experiment");
  OneRank alone;
  std::atomic<bool> stop{false};
  int started = 0;
  auto options = on_threads(2);
  options.output = dir / "out.h5";
  options.stop = &stop;
  options.on_start = [&] {  // set up: before the first replication
    ++started;
    stop = true;
  };
  const auto stopped = run_experiment(experiment(), options, alone);
  EXPECT_EQ(started, 1);
  EXPECT_FALSE(stopped.report);
  ASSERT_TRUE(stopped.stopped);
  EXPECT_EQ(stopped.stopped->kept, 0u);
  EXPECT_EQ(stopped.stopped->asked, 40u);

  stop = false;
  options.on_start = {};
  const auto resumed = run_experiment(experiment(), options, alone);
  ASSERT_TRUE(resumed.report);  // read back from the output
  EXPECT_EQ(resumed.report->digest, run_experiment(experiment(), on_threads(1), alone).report->digest);
}

TEST(RunExperiment, ABadThreadCountIsRefusedBeforeTheOutputIsTouched) {
  const testing::TempDir dir("run-experiment");
  OneRank alone;
  auto options = on_threads(0);
  options.output = dir / "out.h5";
  EXPECT_THROW(run_experiment(experiment(), options, alone), UserError);
  EXPECT_FALSE(std::filesystem::exists(options.output));
}

}  // namespace
}  // namespace pfmab::run
