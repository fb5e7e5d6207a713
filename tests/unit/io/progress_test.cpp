// Progress: the remaining time from what the replications handed on took,
// the cells' estimated costs and the run's parallelism, hand-computed on
// synthetic timings (no clock); the cells' short names; and the lines drawn: plain
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

#include "pfmab/io/experiment.hpp"

#include "fixtures.hpp"
#include "printable.hpp"
#include "python_stand_in.hpp"

namespace pfmab::io {
namespace {

// What the process wrote to stderr while `body` ran.
template <class Body>
std::string stderr_of(Body&& body) {
  const auto path =
      std::filesystem::temp_directory_path() / ("pfmab-progress-" + std::to_string(::getpid()));
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

// A replication that took `wall` seconds.
sim::TimeUsed took(double wall) { return {wall, wall, 1}; }

// A replication of `cell` done at `seconds`, having taken `wall` seconds,
// and handed on at once.
void done(ProgressTracker& tracker, std::size_t cell, double seconds, double wall) {
  tracker.finished(cell, seconds, took(wall));
  tracker.handed_on(cell);
}

// A cheap cell (cost 1, 4 replications), then two costly ones (cost 10, 4
// replications each), of one algorithm.
std::vector<CellWork> cheap_then_costly() {
  return {{"cheap", "a", "4x9", 1.0, 4},
          {"costly", "a", "4x9", 10.0, 4},
          {"costlier", "a", "4x9", 10.0, 4}};
}

TEST(ProgressTracker, KnowsNoRemainingTimeBeforeAReplicationIsDone) {
  const ProgressTracker tracker({{"empty", "a", "4x9", 1.0, 0}, {"first", "a", "4x9", 1.0, 3}}, 1);
  const auto estimate = tracker.at(5.0);
  EXPECT_EQ(estimate.done, 0u);
  EXPECT_EQ(estimate.total, 3u);
  EXPECT_FALSE(estimate.remaining);
  EXPECT_EQ(estimate.cell, 1u) << "the first cell with replications to run";
}

TEST(ProgressTracker, TheRestTakesEachCellsOwnTimeWeighedWithItsGroupsSecondsPerUnit) {
  // one replication at a time, 1 s per unit of cost
  ProgressTracker tracker(cheap_then_costly(), 1);
  for (int r = 1; r <= 4; ++r) done(tracker, 0, r, 1.0);
  const auto estimate = tracker.at(4.0);
  EXPECT_EQ(estimate.done, 4u);
  EXPECT_EQ(estimate.total, 12u);
  EXPECT_EQ(estimate.cell, 0u);
  // 8 replications of cost 10 at 1 s per unit; done/total at the average
  // rate would say 8 s
  ASSERT_TRUE(estimate.remaining);
  EXPECT_DOUBLE_EQ(*estimate.remaining, 80.0);
  // the costly cell's first takes 20 s, twice its estimate: its own mean
  // with one replication's worth of the group's 24 s for 14 units
  done(tracker, 1, 24.0, 20.0);
  EXPECT_EQ(tracker.at(24.0).cell, 1u);
  const double rate = 24.0 / 14;
  EXPECT_DOUBLE_EQ(*tracker.at(24.0).remaining, 3 * (20.0 + 10 * rate) / 2 + 4 * 10 * rate);
}

TEST(ProgressTracker, ACellThatCostsMoreThanItsEstimateSaysIsLearnedAtItsFirstReplication) {
  // two cells estimated alike (an option or an alpha the estimate does not
  // see), the second 5 times as costly
  ProgressTracker tracker({{"radius 1", "a", "4x9", 1.0, 4}, {"radius 2", "a", "4x9", 1.0, 11}}, 1);
  for (int r = 1; r <= 4; ++r) done(tracker, 0, r, 1.0);
  EXPECT_DOUBLE_EQ(*tracker.at(4.0).remaining, 11.0);
  done(tracker, 1, 9.0, 5.0);
  // (5 s + the group's 9 s for 5 units) over 2, for each of the 10 left
  EXPECT_DOUBLE_EQ(*tracker.at(9.0).remaining, 10 * (5.0 + 9.0 / 5) / 2);
  for (int r = 2; r <= 6; ++r) done(tracker, 1, 4.0 + 5 * r, 5.0);
  // 6 of 5 s and one of the group's 34 s for 10 units, for each of the 5 left
  EXPECT_DOUBLE_EQ(*tracker.at(34.0).remaining, 5 * (30.0 + 34.0 / 10) / 7);
}

TEST(ProgressTracker, ACellNotBegunTakesItsGroupsRateWithEachCellBegunOneSampleAndTheMachinesOne) {
  // centralized-kl-ucb at alpha 0 at twice its estimate, alpha 0.5 not
  // begun (its cost grows otherwise with alpha: the first cell's rate is
  // not all of the group's), the machine at 1 s per unit
  ProgressTracker tracker({{"m", "m", "4x9", 1.0, 2},
                           {"k alpha 0", "k", "4x9", 1.0, 1},
                           {"k alpha 0.5", "k", "4x9", 1.0, 1}},
                          1);
  done(tracker, 0, 1.0, 1.0);
  done(tracker, 0, 2.0, 1.0);
  done(tracker, 1, 4.0, 2.0);
  EXPECT_DOUBLE_EQ(*tracker.at(4.0).remaining, (2.0 + 1.0) / 2);
}

TEST(ProgressTracker, TheRunsParallelismIsTheWorkDoneOverTheTimeItTook) {
  // two threads, each replication 2 s of wall time (two policies taking
  // turns at the GIL, or two cores)
  ProgressTracker tracker({{"only", "a", "4x9", 1.0, 10}}, 2);
  done(tracker, 0, 2.0, 2.0);
  done(tracker, 0, 2.0, 2.0);
  // 4 s of work handed on and the one in flight's half of 2 s, in 2 s: at
  // most the 2 workers; the 8 left take 16 s of work, 1 of it done
  EXPECT_DOUBLE_EQ(*tracker.at(2.0).remaining, (16.0 - 1.0) / 2);
  // threads that wait (for the GIL, for a replication before theirs, for
  // a core other jobs took): 2 replications of 1 s handed on in 4 s
  ProgressTracker waiting({{"only", "a", "4x9", 1.0, 6}}, 2);
  done(waiting, 0, 2.0, 1.0);
  done(waiting, 0, 4.0, 1.0);
  EXPECT_DOUBLE_EQ(*waiting.at(4.0).remaining, (4.0 - 0.5) / ((2.0 + 0.5) / 4));
}

TEST(ProgressTracker, ReplicationsDoneButWaitingForAnEarlierOneCountAsDone) {
  // two threads; the run's threads took the costly cell's replications
  // before the cheap one's last (oneTBB may run the newest first), and it
  // is not handed on yet: what they took is behind the run all the same
  ProgressTracker tracker({{"cheap", "a", "4x9", 1.0, 2}, {"costly", "a", "4x9", 10.0, 4}}, 2);
  done(tracker, 0, 1.0, 1.0);
  tracker.finished(1, 11.0, took(10.0));
  tracker.finished(1, 11.0, took(10.0));
  const auto estimate = tracker.at(11.0);
  EXPECT_EQ(estimate.done, 1u) << "handed on";
  EXPECT_EQ(estimate.cell, 0u);
  // left: the cheap one and two costly ones, 21 s, half the cheap one's
  // running; 21 s of work done and that half, in 11 s: 1.95 workers
  ASSERT_TRUE(estimate.remaining);
  EXPECT_DOUBLE_EQ(*estimate.remaining, (21.0 - 0.5) / ((21.0 + 0.5) / 11));
}

TEST(ProgressTracker, AnAlgorithmOnceBegunTakesItsOwnSecondsPerUnit) {
  ProgressTracker tracker({{"cheap", "a", "4x9", 1.0, 4}, {"costly", "b", "4x9", 10.0, 4}}, 1);
  for (int r = 1; r <= 4; ++r) done(tracker, 0, r, 1.0);
  EXPECT_DOUBLE_EQ(*tracker.at(4.0).remaining, 40.0) << "b not begun: a's 1 s per unit";
  done(tracker, 1, 24.0, 20.0);
  // b: 20 s for 10 units; every algorithm's 24 s for 14 would say 51.4 s
  EXPECT_DOUBLE_EQ(*tracker.at(24.0).remaining, 2.0 * 30);
}

TEST(ProgressTracker, AGameSizeNotBegunTakesItsAlgorithmsRateOnTheSizesItRan) {
  // a on a small game, then b, then a on a larger one
  ProgressTracker tracker({{"a small", "a", "4x9", 1.0, 2},
                           {"b", "b", "4x9", 1.0, 2},
                           {"a large", "a", "10x40", 10.0, 2}},
                          1);
  done(tracker, 0, 2.0, 2.0);
  done(tracker, 0, 4.0, 2.0);  // a: 2 s per unit
  EXPECT_DOUBLE_EQ(*tracker.at(4.0).remaining, 2.0 * 2 + 2.0 * 20) << "b as a, not begun";
  done(tracker, 1, 10.0, 6.0);
  // b: 6 s per unit, its one cell begun weighed alike with the machine's
  // rate (a's 2 s, which holds the middle of the work), 4 s; its cell's own
  // 6 s with one replication's worth of that, 5 s. a's larger game not
  // begun: a's 2 s, not b's
  EXPECT_DOUBLE_EQ(*tracker.at(10.0).remaining, (6.0 + 4.0) / 2 + 2.0 * 20);
  done(tracker, 1, 16.0, 6.0);
  done(tracker, 2, 46.0, 30.0);
  // a on 10x40: 3 s per unit, its own from now on, weighed with a's 34 s
  // for 12 units, which holds the middle of the work
  const double rate = (3.0 + 34.0 / 12) / 2;
  EXPECT_DOUBLE_EQ(*tracker.at(46.0).remaining, (30.0 + 10 * rate) / 2);
}

TEST(ProgressTracker, AnAlgorithmNotBegunTakesTheRateOfTheMiddleOfTheWorkNotThePooledRate) {
  // a at 1 s per unit; b, whose cost is misjudged a thousandfold, at 1000 s;
  // c, a thousand units, not begun
  ProgressTracker tracker(
      {{"a", "a", "4x9", 10.0, 1}, {"b", "b", "4x9", 0.01, 1}, {"c", "c", "4x9", 1000.0, 1}}, 1);
  done(tracker, 0, 10.0, 10.0);
  done(tracker, 1, 20.0, 10.0);
  // a holds the middle of the 10.01 units measured: 1000 s for c; pooled,
  // 20 s for 10.01 units would say 1998 s
  EXPECT_DOUBLE_EQ(*tracker.at(20.0).remaining, 1000.0);
  // two cheap algorithms at 5 and 8 s per unit (their overhead), a costly
  // one at 2 s with most of the work: c takes 2 s, not the middle 5 s
  ProgressTracker three({{"p", "p", "4x9", 1.0, 1},
                         {"q", "q", "4x9", 1.0, 1},
                         {"r", "r", "4x9", 100.0, 1},
                         {"c", "c", "4x9", 1.0, 1}},
                        1);
  done(three, 0, 5.0, 5.0);
  done(three, 1, 13.0, 8.0);
  done(three, 2, 213.0, 200.0);
  EXPECT_DOUBLE_EQ(*three.at(213.0).remaining, 2.0);
}

TEST(ProgressTracker, AnAlgorithmTheEstimateDoesNotModelNeitherTakesNorLendsARate) {
  // a Python policy at 100 s per unit of the engine's share of it, then a
  // compiled algorithm, then another Python one
  ProgressTracker tracker({{"py", "py", "4x9", 1.0, 2, 0, false},
                           {"a", "a", "4x9", 10.0, 2},
                           {"py2", "py2", "4x9", 1.0, 2, 0, false}},
                          1);
  done(tracker, 0, 100.0, 100.0);
  // a and py2 not begun, and no modelled algorithm has run: the estimate's
  // nanosecond for each unit of theirs, nothing of py's rate
  EXPECT_DOUBLE_EQ(*tracker.at(100.0).remaining, 100.0 + 1e-9 * (2 * 10.0 + 2 * 1.0));
  done(tracker, 0, 200.0, 100.0);
  done(tracker, 1, 210.0, 10.0);
  // a at 1 s per unit; py2 at the machine's rate, a's, not py's 100 s
  EXPECT_DOUBLE_EQ(*tracker.at(210.0).remaining, 10.0 + 2 * 1.0);
}

TEST(ProgressTracker,
     BeforeAModelledAlgorithmHasRunTheLoadTheReplicationsShowStretchesTheEstimate) {
  // two workers on a machine other jobs hold: a Python policy's replications
  // took 10 s of wall time for 1 s of processor time (at most 2 of it
  // waiting for the other's GIL), so the compiled cell after them is priced
  // at 5 ns per unit; on an idle machine, 2 s for 1 s says nothing
  for (const auto& [wall, stretch] : {std::pair{10.0, 5.0}, std::pair{2.0, 1.0}}) {
    ProgressTracker tracker({{"py", "py", "4x9", 1.0, 2, 0, false}, {"a", "a", "4x9", 1e9, 1}}, 2);
    tracker.finished(0, wall, {1.0, wall, 1});
    tracker.finished(0, wall, {1.0, wall, 1});
    tracker.handed_on(0);
    tracker.handed_on(0);
    // the compiled replication: 1e9 units at `stretch` ns, half of it in
    // flight (begun as the Python ones ended); 2 workers
    const double left = stretch * 1e9 * 1e-9;
    EXPECT_DOUBLE_EQ(*tracker.at(wall).remaining,
                     (left - 0.5 * left) / std::min((2 * wall + 0.5 * left) / wall, 2.0))
        << wall;
  }
}

TEST(ProgressTracker, TheTimeSinceTheLastReplicationHandedOnPasses) {
  ProgressTracker tracker(cheap_then_costly(), 1);
  for (int r = 1; r <= 4; ++r) done(tracker, 0, r, 1.0);
  EXPECT_DOUBLE_EQ(*tracker.at(10.0).remaining, 80.0 - 6.0);
  EXPECT_EQ(*tracker.at(200.0).remaining, 0.0) << "overdue, not negative";
}

// Cells of an experiment's text, with the values they were made from.
io::Experiment experiment_of(const std::string& toml) {
  return io::load_experiment_text(toml, "test experiment", testing::shared_data(""));
}

TEST(CellWork, NamesEachCellShortlyAndCountsTheReplicationsOfTheRun) {
  const auto experiment = experiment_of(R"(
replications = 10
[instance]
means = "synthetic_4x9.csv"
[[sweep]]
algorithm.name = "local-ucb"
alpha = 0.5
horizon = 1e6
instance.means = "movielens_10x40.csv"
[[sweep]]
algorithm.name = "pf-ucb"
alpha = 0
comm_cost = 0.25
horizon = 2.5e6
instance.means = [[0.9, 0.1], [0.2, 0.8]]
[[sweep]]
algorithm.name = "pf-ucb"
alpha = 1
comm_cost = 1
horizon = [2000, 999, 1234567]
)");
  const std::vector<sim::ReplicationRange> ranges{{0, 10}, {5, 10}, {0, 1}, {0, 1}, {0, 1}};
  const auto work = cell_work(experiment.cells, experiment.values, ranges);
  ASSERT_EQ(work.size(), 5u);
  // local-ucb never pays for communication: no C
  EXPECT_EQ(work[0].name, "local-ucb alpha 0.5 T 1e6 movielens_10x40");
  EXPECT_EQ(work[1].name, "pf-ucb alpha 0 C 0.25 T 2.5e6 inline");
  EXPECT_EQ(work[2].name, "pf-ucb alpha 1 C 1 T 2e3 synthetic_4x9");
  EXPECT_EQ(work[3].name, "pf-ucb alpha 1 C 1 T 999 synthetic_4x9");
  EXPECT_EQ(work[4].name, "pf-ucb alpha 1 C 1 T 1234567 synthetic_4x9");
  EXPECT_EQ(work[0].algorithm, "local-ucb");
  EXPECT_EQ(work[1].algorithm, "pf-ucb");
  EXPECT_EQ(work[0].game, "10x40") << "M x K: the cells' rates are learned by algorithm and size";
  EXPECT_EQ(work[1].game, "2x2");
  EXPECT_EQ(work[0].replications, 10u);
  EXPECT_EQ(work[1].replications, 5u);
  EXPECT_TRUE(work[0].modelled);
  // slot by slot at 10^6 slots against PF-UCB's phases
  EXPECT_GT(work[0].cost, 1000 * work[2].cost);
}

TEST(CellWork, ANameSaysOnlyWhatTellsTheCellFromTheOthersAndAContinuedRunWhatItKept) {
  // a horizon sweep: T alone tells its cells apart
  const auto sweep = experiment_of(
      "alpha = 0.25\ncomm_cost = 1\nhorizon = [1000, 1e6]\n"
      "[instance]\nmeans = \"synthetic_4x9.csv\"\n[algorithm]\nname = \"pf-ucb\"\n");
  const std::vector<sim::ReplicationRange> ranges{{0, 10}, {4, 10}};
  const std::vector<std::uint64_t> kept{0, 4};
  const auto work = cell_work(sweep.cells, sweep.values, ranges, kept);
  EXPECT_EQ(work[0].name, "T 1e3");
  EXPECT_EQ(work[1].name, "T 1e6");
  EXPECT_EQ(work[1].replications, 6u);
  EXPECT_EQ(work[1].kept, 4u);
  // one cell: everything
  const auto one = cell_work(std::span(sweep.cells).first(1), std::span(sweep.values).first(1),
                             std::span(ranges).first(1));
  EXPECT_EQ(one[0].name, "pf-ucb alpha 0.25 C 1 T 1e3 synthetic_4x9");
  EXPECT_EQ(one[0].kept, 0u);
}

TEST(CellWork, APythonAlgorithmsOptionsNameItsCellsAndAKeyThatVariesOnlyWithTheAlgorithmDoesNot) {
  testing::register_python_stand_in();
  const auto experiment = experiment_of(std::string(R"(
horizon = 1e4
alpha = [0, 1]
[instance]
means = "synthetic_4x9.csv"
[algorithm]
name = [")") + std::string(testing::kPythonStandIn) +
                                        R"(", "local-ucb"]
first_phase = [1, 100]
)");
  const std::vector<sim::ReplicationRange> ranges(experiment.cells.size(), {0, 1});
  const auto work = cell_work(experiment.cells, experiment.values, ranges);
  ASSERT_EQ(work.size(), 6u);
  // the Python class by its name alone, as no other module's class has it;
  // the mode (aggregated, per-pull for a baseline) and C (none for a
  // baseline) differ only with the algorithm
  EXPECT_EQ(work[0].name, "FederatedEpsilonGreedy alpha 0 first_phase 1");
  EXPECT_EQ(work[1].name, "FederatedEpsilonGreedy alpha 0 first_phase 100");
  EXPECT_EQ(work[3].name, "FederatedEpsilonGreedy alpha 1 first_phase 100");
  EXPECT_EQ(work[0].algorithm, testing::kPythonStandIn) << "its rates by its full name";
  EXPECT_EQ(work[4].name, "local-ucb alpha 0");
  EXPECT_EQ(work[5].name, "local-ucb alpha 1");
  EXPECT_FALSE(work[0].modelled) << "its policy's calls are no estimate's";
  EXPECT_TRUE(work[4].modelled);
}

TEST(CellWork, TwoPythonClassesOfOneNameAreNamedByTheirModulesToo) {
  testing::register_python_stand_in();
  const std::string elsewhere = "tests.elsewhere:FederatedEpsilonGreedy";
  testing::register_python_stand_in(elsewhere);
  const auto experiment = experiment_of(
      "horizon = 1e4\nalpha = 0.5\n[instance]\nmeans = \"synthetic_4x9.csv\"\n"
      "[algorithm]\nname = [\"" +
      std::string(testing::kPythonStandIn) + "\", \"" + elsewhere + "\"]\n");
  const std::vector<sim::ReplicationRange> ranges(experiment.cells.size(), {0, 1});
  const auto work = cell_work(experiment.cells, experiment.values, ranges);
  ASSERT_EQ(work.size(), 2u);
  EXPECT_EQ(work[0].name, std::string(testing::kPythonStandIn));
  EXPECT_EQ(work[1].name, elsewhere);
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
  ProgressTracker tracker(cells, 1);
  auto estimate = tracker.at(1.0);
  EXPECT_EQ(estimate.done, 365u);
  EXPECT_EQ(estimate.total, 7400u);
  EXPECT_FALSE(estimate.remaining) << "nothing of this run timed yet";
  done(tracker, 1, 2.0, 2.0);
  estimate = tracker.at(2.0);
  EXPECT_EQ(estimate.done, 366u);
  // 2 s for one replication of cost 1: the 7034 left take 2 s each, on one
  // worker whose replications took the 2 s
  ASSERT_TRUE(estimate.remaining);
  EXPECT_DOUBLE_EQ(*estimate.remaining, 2.0 * 7034);
}

TEST(ProgressDisplay, AReportedDisplayReportsOnceMoreAsItEnds) {
  // a period of an hour: the one report is the last, whatever the scheduler does
  std::vector<ProgressReport> reports;
  {
    ProgressDisplay progress({{"only", "a", "4x9", 1.0, 10, 5}}, 2, ProgressStyle::reported,
                             std::chrono::hours(1),
                             [&](const ProgressReport& r) { reports.push_back(r); });
    for (int r = 0; r < 2; ++r) {
      progress.finished(0, took(1.0));
      progress.handed_on(0);
    }
  }
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].done, 7u);
  EXPECT_EQ(reports[0].total, 15u);
  EXPECT_EQ(reports[0].cell_name, "only");
}

TEST(ProgressDisplay, NoneWritesNothing) {
  const auto text = stderr_of([&] {
    ProgressDisplay progress({{"only", "a", "4x9", 1.0, 10}}, 2, ProgressStyle::none,
                             std::chrono::milliseconds(1));
    progress.finished(0, took(1.0));
    progress.handed_on(0);
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
