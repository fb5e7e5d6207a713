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
  return {{"cheap", "a", "4x9", 1.0, 4},
          {"costly", "a", "4x9", 10.0, 4},
          {"costlier", "a", "4x9", 10.0, 4}};
}

TEST(ProgressTracker, KnowsNoRemainingTimeBeforeAReplicationIsDone) {
  const ProgressTracker tracker({{"empty", "a", "4x9", 1.0, 0}, {"first", "a", "4x9", 1.0, 3}}, 0);
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
  ProgressTracker tracker({{"cheap", "a", "4x9", 1.0, 4}, {"costly", "b", "4x9", 10.0, 4}}, 0);
  for (int r = 1; r <= 4; ++r) tracker.finished(0, r);
  EXPECT_DOUBLE_EQ(*tracker.at(4.0).remaining, 40.0) << "b not begun: a's 1 s per unit";
  tracker.finished(1, 24.0);
  // b: 20 s for 10 units; every algorithm's 24 s for 14 would say 51.4 s
  EXPECT_DOUBLE_EQ(*tracker.at(24.0).remaining, 2.0 * 30);
}

TEST(ProgressTracker, AGameSizeNotBegunTakesItsAlgorithmsRateOnTheSizesItRan) {
  // a on a small game, then b, then a on a larger one; the estimate is 1 s
  // per unit for a, 3 s for b
  ProgressTracker tracker({{"a small", "a", "4x9", 1.0, 2},
                           {"b", "b", "4x9", 1.0, 2},
                           {"a large", "a", "10x40", 10.0, 2}},
                          0);
  tracker.finished(0, 2.0);
  tracker.finished(0, 4.0);  // a: 2 s per unit
  EXPECT_DOUBLE_EQ(*tracker.at(4.0).remaining, 2.0 * 2 + 2.0 * 20) << "b as a, not begun";
  tracker.finished(1, 10.0);
  // b: 6 s per unit; a's larger game not begun: a's 2 s, not b's 6 s
  EXPECT_DOUBLE_EQ(*tracker.at(10.0).remaining, 6.0 * 1 + 2.0 * 20);
  tracker.finished(1, 16.0);
  tracker.finished(2, 46.0);  // a on 10x40: 3 s per unit, its own from now on
  EXPECT_DOUBLE_EQ(*tracker.at(46.0).remaining, 3.0 * 10);
}

TEST(ProgressTracker, AnAlgorithmNotBegunTakesTheRateOfTheMiddleOfTheWorkNotThePooledRate) {
  // a at 1 s per unit; b, whose cost is misjudged a thousandfold, at 1000 s;
  // c, a thousand units, not begun
  ProgressTracker tracker(
      {{"a", "a", "4x9", 10.0, 1}, {"b", "b", "4x9", 0.01, 1}, {"c", "c", "4x9", 1000.0, 1}}, 0);
  tracker.finished(0, 10.0);
  tracker.finished(1, 20.0);
  // a holds the middle of the 10.01 units measured: 1000 s for c; pooled,
  // 20 s for 10.01 units would say 1998 s
  EXPECT_DOUBLE_EQ(*tracker.at(20.0).remaining, 1000.0);
  // two cheap algorithms at 5 and 8 s per unit (their overhead), a costly
  // one at 2 s with most of the work: c takes 2 s, not the middle 5 s
  ProgressTracker three({{"p", "p", "4x9", 1.0, 1},
                         {"q", "q", "4x9", 1.0, 1},
                         {"r", "r", "4x9", 100.0, 1},
                         {"c", "c", "4x9", 1.0, 1}},
                        0);
  three.finished(0, 5.0);
  three.finished(1, 13.0);
  three.finished(2, 213.0);
  EXPECT_DOUBLE_EQ(*three.at(213.0).remaining, 2.0);
}

TEST(ProgressTracker, TheTimeBetweenHandOnsGoesToTheWorkEachAlgorithmGained) {
  ProgressTracker tracker({{"cheap", "a", "4x9", 1.0, 4}, {"costly", "b", "4x9", 10.0, 4}}, 2);
  tracker.finished(0, 1.0);  // in flight: cheap 2 and 3
  tracker.finished(0, 2.0);  // cheap 3 and 4: a has 2 done, 2 in flight, 2 s
  tracker.finished(0, 3.0);
  // a gained 1 done - 3/4 in flight, 1/4 unit; b, its first in flight, 7.5:
  // the second is shared 1 : 30. a: 2 + 1/31 s for 3 + 3/4 units, 1/4 left.
  // b has handed on nothing: its 30/31 s for 7.5 units are the time of a's
  // replications as much as its own, so it takes a's rate for its 32.5 left
  const double a = (2.0 + 1.0 / 31) / 3.75;
  EXPECT_NEAR(*tracker.at(3.0).remaining, a * (0.25 + 32.5), 1e-12);
}

TEST(ProgressTracker, AGroupsOwnRateTakesOverAsItsReplicationsOutweighTheWindow) {
  ProgressTracker tracker({{"a", "a", "4x9", 1.0, 1}, {"b", "b", "4x9", 1.0, 7}}, 2);
  // a's one replication and b's first two in flight: the first second goes
  // 1 : 1.5 to a's unit done and b's two 3/4 done, a at 0.4 s per unit
  tracker.finished(0, 1.0);
  tracker.finished(1, 5.0);  // b's first: 1 done, 2 in flight, 0.6 + 4 s for 2.5 units
  // b's own 1.84 s per unit trusted 1 / (1 + 2) against a's 0.4, for the
  // 4.5 units left
  EXPECT_DOUBLE_EQ(*tracker.at(5.0).remaining, 4.5 * (4.6 / 2.5 / 3 + 0.4 * 2 / 3));
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
  EXPECT_EQ(work[0].game, "2x3") << "M x K: the cells' rates are learned by algorithm and size";
  EXPECT_EQ(work[0].replications, 10u);
  EXPECT_EQ(work[1].replications, 5u);
  // slot by slot at 10^6 slots against PF-UCB's phases
  EXPECT_GT(work[0].cost, 1000 * work[1].cost);
}

TEST(CellWork, ANameSaysOnlyWhatTellsTheCellFromTheOthersAndAContinuedRunWhatItKept) {
  // a horizon sweep: T alone tells its cells apart
  const std::vector<sim::Cell> sweep{
      cell_of("pf-ucb", 0.25, 1, 1000, "data/synthetic_4x9.csv"),
      cell_of("pf-ucb", 0.25, 1, 1'000'000, "data/synthetic_4x9.csv")};
  const std::vector<sim::ReplicationRange> ranges{{0, 10}, {4, 10}};
  const std::vector<std::uint64_t> kept{0, 4};
  const auto work = cell_work(sweep, ranges, kept);
  EXPECT_EQ(work[0].name, "T 1e3");
  EXPECT_EQ(work[1].name, "T 1e6");
  EXPECT_EQ(work[1].replications, 6u);
  EXPECT_EQ(work[1].kept, 4u);
  // one cell: everything
  const auto one = cell_work(std::span(sweep).first(1), std::span(ranges).first(1));
  EXPECT_EQ(one[0].name, "pf-ucb alpha 0.25 C 1 T 1e3 synthetic_4x9");
  EXPECT_EQ(one[0].kept, 0u);
}

// A report of cell `cell` of `cells` named `name`, `done` of `total` done
// with 30 s behind and 90 s ahead (a quarter of the run's time).
ProgressReport report_of(std::uint64_t done, std::uint64_t total, std::size_t cell,
                         std::size_t cells, std::string name) {
  return {done, total, 30.0, 90.0, cell, cells, std::move(name)};
}

TEST(ProgressLine, ALoggedLineSaysDoneTotalShareEtaAndTheCell) {
  const auto line = logged_line(report_of(365, 7400, 4, 220, "pf-alloc alpha 0.25 C 1"));
  EXPECT_EQ(line,
            "pfmab: 365/7400 replications  25.0% done  ETA 90s  cell 5/220: pf-alloc "
            "alpha 0.25 C 1");
  EXPECT_EQ(line.find_first_of("\r\033"), std::string::npos) << "no terminal codes in a log";
  EXPECT_EQ(logged_line({0, 10, 0.0, std::nullopt, 0, 1, "only"}),
            "pfmab: 0/10 replications  0.0% done  ETA -  cell 1/1: only");
}

TEST(ProgressLine, ARedrawnLineDropsTheLeastUsefulPartsFirstToFitTheTerminal) {
  const auto report = report_of(365, 7400, 4, 220, "pf-alloc alpha 0.25 C 1 T 1e6 movielens_10x40");
  const std::string bar = "[=====               ] ";
  const std::string counts = "365/7400  ETA 90s";
  const std::string name = "pf-alloc alpha 0.25 C 1 T 1e6 movielens_10x40";
  const auto whole = bar + counts + "  cell 5/220: " + name;
  EXPECT_EQ(redrawn_line(report, 200), whole);
  EXPECT_EQ(redrawn_line(report, whole.size()), whole);
  // one column short: the bar goes first, then the cell's number
  EXPECT_EQ(redrawn_line(report, whole.size() - 1), counts + "  cell 5/220: " + name);
  EXPECT_EQ(redrawn_line(report, counts.size() + 14 + name.size() - 1), counts + "  " + name);
  // then the end of the name, marked; the counts and the ETA stay whatever the width
  const auto cut = redrawn_line(report, 40);
  EXPECT_EQ(cut, (counts + "  " + name).substr(0, 37) + "...");
  EXPECT_EQ(redrawn_line(report, 10), counts);
}

TEST(ProgressLine, ARedrawnLineIsCutBetweenCharactersAndCountsThemNotBytes) {
  std::string accents;
  for (int i = 0; i < 100; ++i) accents += "\u00e9";  // 2 bytes each in UTF-8
  // one of the two is cut inside a character at 79 bytes, whatever comes before
  for (const auto& name : {accents, "x" + accents}) {
    const auto line = redrawn_line(report_of(1, 10, 0, 1, name), 79);
    EXPECT_TRUE(testing::printable(line)) << "cut between characters: " << line;
    EXPECT_TRUE(line.ends_with("...")) << line;
    EXPECT_EQ(line.rfind("1/10  ETA 90s  ", 0), 0u) << line;
    std::size_t characters = 0;
    for (const char c : line) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    EXPECT_GE(characters, 78u) << line;
    EXPECT_LE(characters, 79u) << line;
  }
}

TEST(ProgressTracker, AContinuedRunCountsWhatItKeptAsDoneButTimesOnlyWhatItRuns) {
  // 365 of 7400 kept: the line counts the whole run, the rate this run's alone
  std::vector<CellWork> cells{{"first", "a", "4x9", 1.0, 0, 300},
                              {"second", "a", "4x9", 1.0, 7035, 65}};
  ProgressTracker tracker(cells, 0);
  auto estimate = tracker.at(1.0);
  EXPECT_EQ(estimate.done, 365u);
  EXPECT_EQ(estimate.total, 7400u);
  EXPECT_FALSE(estimate.remaining) << "nothing of this run timed yet";
  tracker.finished(1, 2.0);
  estimate = tracker.at(2.0);
  EXPECT_EQ(estimate.done, 366u);
  // 2 s for one replication of cost 1: the 7034 left take 2 s each
  ASSERT_TRUE(estimate.remaining);
  EXPECT_DOUBLE_EQ(*estimate.remaining, 2.0 * 7034);
}

TEST(ProgressDisplay, AReportedDisplayReportsOnceMoreAsItEnds) {
  // a period of an hour: the one report is the last, whatever the scheduler does
  std::vector<ProgressReport> reports;
  {
    ProgressDisplay progress({{"only", "a", "4x9", 1.0, 10, 5}}, 8, ProgressStyle::reported,
                             std::chrono::hours(1),
                             [&](const ProgressReport& r) { reports.push_back(r); });
    progress.finished(0);
    progress.finished(0);
  }
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].done, 7u);
  EXPECT_EQ(reports[0].total, 15u);
  EXPECT_EQ(reports[0].cell_name, "only");
}

TEST(ProgressDisplay, NoneWritesNothing) {
  const auto text = stderr_of([&] {
    ProgressDisplay progress({{"only", "a", "4x9", 1.0, 10}}, 8, ProgressStyle::none,
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
