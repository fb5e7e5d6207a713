// Progress: the remaining time from the cells' estimated costs and the
// seconds per unit of cost measured so far, hand-computed on synthetic
// timings (no clock); the cells' short names; and the lines drawn: plain
// lines for a batch job's log (no carriage return, no terminal codes), one
// redrawn line cut to the terminal's width, none when off.
#include "pfmab/io/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "printable.hpp"

namespace pfmab::io {
namespace {

// What the process wrote to stderr while `body` ran.
template <class Body>
std::string stderr_of(Body&& body) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("pfmab-progress-" + std::to_string(::getpid()));
  std::fflush(stderr);
  const int saved = ::dup(STDERR_FILENO);
  std::FILE* file = std::fopen(path.c_str(), "w");
  ::dup2(::fileno(file), STDERR_FILENO);
  body();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::fclose(file);
  std::ifstream in(path);
  std::string text{std::istreambuf_iterator<char>(in), {}};
  std::filesystem::remove(path);
  return text;
}

// A cheap cell (cost 1, 4 replications), then two costly ones (cost 10, 4
// replications each), of one algorithm.
std::vector<CellWork> cheap_then_costly() {
  return {{"cheap", "a", 1.0, 4}, {"costly", "a", 10.0, 4}, {"costlier", "a", 10.0, 4}};
}

TEST(ProgressTracker, KnowsNoRemainingTimeBeforeAReplicationIsDone) {
  const ProgressTracker tracker({{"empty", "a", 1.0, 0}, {"first", "a", 1.0, 3}}, 0);
  const auto estimate = tracker.at(5.0);
  EXPECT_EQ(estimate.done, 0u);
  EXPECT_EQ(estimate.total, 3u);
  EXPECT_FALSE(estimate.remaining);
  EXPECT_EQ(estimate.cell, 1u) << "the first cell with replications to run";
}

TEST(ProgressTracker, TheRestTakesItsCostAtTheSecondsPerUnitMeasured) {
  ProgressTracker tracker(cheap_then_costly(), 0);      // one replication at a time
  for (int r = 1; r <= 4; ++r) tracker.finished(0, r);  // 1 s per unit of cost
  const auto estimate = tracker.at(4.0);
  EXPECT_EQ(estimate.done, 4u);
  EXPECT_EQ(estimate.total, 12u);
  EXPECT_EQ(estimate.cell, 0u);
  // 8 replications of cost 10 at 1 s per unit; done/total at the average
  // rate would say 8 s
  ASSERT_TRUE(estimate.remaining);
  EXPECT_DOUBLE_EQ(*estimate.remaining, 80.0);
  tracker.finished(1, 24.0);  // 24 s for 14 units
  EXPECT_EQ(tracker.at(24.0).cell, 1u);
  EXPECT_DOUBLE_EQ(*tracker.at(24.0).remaining, 24.0 / 14 * 70);
}

TEST(ProgressTracker, ReplicationsInFlightCountAsThreeQuartersDone) {
  ProgressTracker tracker(cheap_then_costly(), 6);
  tracker.finished(0, 1.0);
  tracker.finished(0, 2.0);
  // in flight: the other 2 cheap ones and 4 costly, 42 units, of which 3/4
  // are taken as done: 2 + 31.5 units behind in 2 s, 84 - 33.5 ahead
  EXPECT_DOUBLE_EQ(*tracker.at(2.0).remaining, 2.0 / 33.5 * (84 - 33.5));
  tracker.finished(0, 3.0);
  tracker.finished(0, 4.0);
  tracker.finished(1, 20.0);
  // done 14 units; in flight 3 of cell 1 and 3 of cell 2, 60 units
  EXPECT_DOUBLE_EQ(*tracker.at(20.0).remaining, 20.0 / 59 * (84 - 59));
  // near the end the window is what is left: 2 of cell 2, 20 units
  for (int r = 2; r <= 4; ++r) tracker.finished(1, 20.0 + r);
  tracker.finished(2, 30.0);
  tracker.finished(2, 31.0);
  EXPECT_DOUBLE_EQ(*tracker.at(31.0).remaining, 31.0 / 79 * (84 - 79));
  tracker.finished(2, 32.0);
  tracker.finished(2, 33.0);
  const auto estimate = tracker.at(33.0);
  EXPECT_EQ(estimate.done, estimate.total);
  EXPECT_EQ(*estimate.remaining, 0.0);
}

TEST(ProgressTracker, AnAlgorithmOnceBegunTakesItsOwnSecondsPerUnit) {
  ProgressTracker tracker({{"cheap", "a", 1.0, 4}, {"costly", "b", 10.0, 4}}, 0);
  for (int r = 1; r <= 4; ++r) tracker.finished(0, r);
  EXPECT_DOUBLE_EQ(*tracker.at(4.0).remaining, 40.0) << "b not begun: a's 1 s per unit";
  tracker.finished(1, 24.0);
  // b: 20 s for 10 units; every algorithm's 24 s for 14 would say 51.4 s
  EXPECT_DOUBLE_EQ(*tracker.at(24.0).remaining, 2.0 * 30);
}

TEST(ProgressTracker, TheTimeBetweenHandOnsGoesToTheWorkEachAlgorithmGained) {
  ProgressTracker tracker({{"cheap", "a", 1.0, 4}, {"costly", "b", 10.0, 4}}, 2);
  tracker.finished(0, 1.0);  // in flight: cheap 2 and 3
  tracker.finished(0, 2.0);  // cheap 3 and 4: a has 2 done, 2 in flight, 2 s
  tracker.finished(0, 3.0);
  // a gained 1 done - 3/4 in flight, 1/4 unit; b, its first in flight, 7.5:
  // the second is shared 1 : 30. a: 2 + 1/31 s for 3 + 3/4 units, 1/4 left;
  // b: 30/31 s for 7.5, 32.5 left
  const double a = (2.0 + 1.0 / 31) / 3.75 * 0.25, b = 30.0 / 31 / 7.5 * 32.5;
  EXPECT_NEAR(*tracker.at(3.0).remaining, a + b, 1e-12);
}

TEST(ProgressTracker, TheTimeSinceTheLastReplicationHandedOnPasses) {
  ProgressTracker tracker(cheap_then_costly(), 0);
  for (int r = 1; r <= 4; ++r) tracker.finished(0, r);
  EXPECT_DOUBLE_EQ(*tracker.at(10.0).remaining, 80.0 - 6.0);
  EXPECT_EQ(*tracker.at(200.0).remaining, 0.0) << "overdue, not negative";
}

sim::Cell cell_of(std::string_view algorithm, double alpha, double comm_cost, std::uint64_t horizon,
                  std::string instance_name) {
  sim::CellSpec spec;
  spec.instance = testing::instance_of({{0.9, 0.1, 0.5}, {0.2, 0.8, 0.5}});
  spec.algorithm = testing::algorithm_named(algorithm);
  spec.alpha = alpha;
  spec.comm_cost = comm_cost;
  spec.horizon = horizon;
  spec.instance_name = std::move(instance_name);
  return sim::Cell(spec, 0);
}

TEST(CellWork, NamesEachCellShortlyAndCountsTheReplicationsOfTheRun) {
  const std::vector<sim::Cell> cells{
      cell_of("local-ucb", 0.5, 10, 1'000'000, "../../shared/data/movielens_10x40.csv"),
      cell_of("pf-ucb", 0, 0.25, 2'500'000, "inline"), cell_of("pf-ucb", 1, 1, 2000, "a.csv"),
      cell_of("pf-ucb", 1, 1, 999, "a.csv"), cell_of("pf-ucb", 1, 1, 1'234'567, "a.csv")};
  const std::vector<sim::ReplicationRange> ranges{{0, 10}, {5, 10}, {0, 1}, {0, 1}, {0, 1}};
  const auto work = cell_work(cells, ranges);
  ASSERT_EQ(work.size(), 5u);
  // local-ucb never pays for communication: no C
  EXPECT_EQ(work[0].name, "local-ucb alpha 0.5 T 1e6 movielens_10x40");
  EXPECT_EQ(work[1].name, "pf-ucb alpha 0 C 0.25 T 2.5e6 inline");
  EXPECT_EQ(work[2].name, "pf-ucb alpha 1 C 1 T 2e3 a");
  EXPECT_EQ(work[3].name, "pf-ucb alpha 1 C 1 T 999 a");
  EXPECT_EQ(work[4].name, "pf-ucb alpha 1 C 1 T 1234567 a");
  EXPECT_EQ(work[0].algorithm, "local-ucb");
  EXPECT_EQ(work[1].algorithm, "pf-ucb");
  EXPECT_EQ(work[0].replications, 10u);
  EXPECT_EQ(work[1].replications, 5u);
  // slot by slot at 10^6 slots against PF-UCB's phases
  EXPECT_GT(work[0].cost, 1000 * work[1].cost);
}

TEST(ProgressDisplay, LoggedLinesSayDoneTotalShareEtaAndTheCell) {
  const auto text = stderr_of([&] {
    ProgressDisplay progress({{"first", "a", 1.0, 100}, {"second", "a", 1.0, 100}}, 8,
                             ProgressStyle::logged, std::chrono::milliseconds(20));
    for (int i = 0; i < 10; ++i) {
      for (int r = 0; r < 10; ++r) progress.finished(i < 5 ? 0 : 1);
      std::this_thread::sleep_for(std::chrono::milliseconds(15));
    }
  });
  std::istringstream lines(text);
  std::vector<std::string> seen;
  for (std::string line; std::getline(lines, line);) seen.push_back(line);
  // 150 ms of run, a line per 20 ms: several, however the scheduler wakes it
  ASSERT_GE(seen.size(), 2u) << text;
  for (const auto& line : seen) {
    EXPECT_EQ(line.rfind("pfmab: ", 0), 0u) << line;
    EXPECT_NE(line.find("/200 replications  "), std::string::npos) << line;
    EXPECT_NE(line.find("% done  ETA "), std::string::npos) << line;
    EXPECT_TRUE(line.ends_with("  cell 1/2: first") || line.ends_with("  cell 2/2: second"))
        << line;
  }
  EXPECT_EQ(text.find_first_of("\r\033"), std::string::npos) << "no terminal codes in a log";
}

// The last line a redrawn display of one cell named `name` draws, between
// its \r and its \033[K, before the clearing.
std::string last_redrawn_line(const std::string& name) {
  const auto text = stderr_of([&] {
    ProgressDisplay progress({{name, "a", 1.0, 10}}, 8, ProgressStyle::redrawn,
                             std::chrono::milliseconds(10));
    progress.finished(0);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  });
  EXPECT_EQ(text.rfind("\r[", 0), 0u) << text;
  EXPECT_TRUE(text.ends_with("\r\033[K")) << text;
  const auto close = text.rfind("\033[K", text.size() - 4);
  const auto open = text.rfind('\r', close) + 1;
  return text.substr(open, close - open);
}

TEST(ProgressDisplay, ARedrawnLineFitsTheTerminalCutBetweenCharacters) {
  std::string accents;
  for (int i = 0; i < 100; ++i) accents += "\u00e9";  // 2 bytes each in UTF-8
  // one of the two is cut inside a character at 79 bytes, whatever comes before
  for (const auto& name : {accents, "x" + accents}) {
    const auto line = last_redrawn_line(name);
    // stderr is a file here, which has no width: 80 columns
    EXPECT_GE(line.size(), 78u) << line;
    EXPECT_LE(line.size(), 79u) << line;
    EXPECT_TRUE(testing::printable(line)) << "cut between characters: " << line;
    EXPECT_NE(line.find("] 1/10  ETA "), std::string::npos) << line;
    EXPECT_NE(line.find("  cell 1/1: "), std::string::npos) << line;
  }
}

TEST(ProgressDisplay, NoneWritesNothing) {
  const auto text = stderr_of([&] {
    ProgressDisplay progress({{"only", "a", 1.0, 10}}, 8, ProgressStyle::none,
                             std::chrono::milliseconds(1));
    progress.finished(0);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  });
  EXPECT_EQ(text, "");
}

TEST(ProgressDisplay, DurationReadsAsSecondsMinutesOrHours) {
  EXPECT_EQ(duration_text(0), "0s");
  EXPECT_EQ(duration_text(19.4), "19s");
  EXPECT_EQ(duration_text(99.4), "99s");
  EXPECT_EQ(duration_text(725), "12m05s");
  EXPECT_EQ(duration_text(5999), "99m59s");
  EXPECT_EQ(duration_text(10'920), "3h02m");
  EXPECT_EQ(duration_text(360'000), "100h00m");
}

}  // namespace
}  // namespace pfmab::io
