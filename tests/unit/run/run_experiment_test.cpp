// The library's run of an experiment in a one-rank world: its report is
// that of the sweep it runs, whatever the threads, and survives a stop and
// a resume through its output (the program's tests, tests/integration, run
// the same entry point through `pfmab run`, with signals and MPI).
#include "pfmab/run/run_experiment.hpp"

#include <atomic>
#include <filesystem>

#include <gtest/gtest.h>

#include "pfmab/run/world.hpp"
#include "pfmab/sim/runner.hpp"
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
