// Issue 15's "progress that knows the cost", issue 26's on the study with
// pf-alloc, and issue 38's on a sweep mixing a Python algorithm with the
// engine's phased algorithms and slot-by-slot baselines.
//
// Each run is simulated, on a clock of its own: a test on a real run's
// clock failed on CI. Processor time counts what the thread pool's idle
// workers spin, and wall time what other jobs take; on an idle 2-core
// machine either put a tenth-in estimate anywhere from 0.72 to 1.43 of the
// truth on a 2-second run. Here each replication takes its cell's cost (the
// estimate times a misfit, or the processor time measured for the cell on
// the real program) times +-30% of noise from a fixed seed. Threads take
// replications at most sim::max_in_flight ahead of the last handed on, and
// hand them on in order, as sim::run_sweep's pipeline does; a Python
// replication holds the GIL for the share of its time its policy's calls
// take (measured), and threads holding it take turns. Each replication
// tells the tracker what it took (its wall seconds) as it is done, as
// sim::RunOptions::timed does, and the sink as it is handed on. The ETA on
// real runs is measured in docs/command-line.md ("Progress").
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "pfmab/io/experiment.hpp"
#include "pfmab/io/progress.hpp"
#include "pfmab/sim/runner.hpp"

#include "fixtures.hpp"
#include "python_stand_in.hpp"

namespace pfmab::io {
namespace {

// What the tracker is told: a replication done (in any order), with what
// it took, or one handed on (in the run's order).
struct Event {
  double seconds;
  std::size_t cell;
  bool handed;
  sim::TimeUsed used;
};

// One replication to simulate: its processor seconds, and the share of them
// spent holding the GIL.
struct Replication {
  std::size_t cell;
  double seconds;
  double gil;
};

// The replications of `work` in the run's order, a replication of cell c
// taking seconds(c) times +-30% of noise from `seed`, gil(c) of it holding
// the GIL.
template <class Seconds, class Gil>
std::vector<Replication> replications(const std::vector<CellWork>& work, Seconds seconds, Gil gil,
                                      std::uint64_t seed) {
  std::mt19937_64 noise(seed);
  std::vector<Replication> all;
  for (std::size_t c = 0; c < work.size(); ++c) {
    for (std::uint64_t r = 0; r < work[c].replications; ++r) {
      const double u = std::ldexp(static_cast<double>(noise() >> 11), -53);  // in [0, 1)
      all.push_back({c, seconds(c) * (0.7 + 0.6 * u), gil(c)});
    }
  }
  return all;
}

// Which replication a free thread takes of those the run's window lets
// begin: the oldest, or the newest (as oneTBB's pipeline may: the token a
// thread has just made).
enum class Pick { oldest, newest };

// When each of `all` is done and handed on, and what it took, on `threads`
// threads (one core each). A replication that holds the GIL for a share g
// of its time runs at 1 / ((1 - g) + g n) of a core while n replications
// that hold it run: its policy's calls take turns with theirs.
std::vector<Event> simulated_run(const std::vector<Replication>& all, unsigned threads,
                                 Pick pick = Pick::oldest) {
  struct Running {
    std::size_t index;
    double left;  // processor seconds
  };
  const std::size_t window = sim::max_in_flight(threads);
  std::vector<Running> running;
  std::vector<bool> begun(all.size(), false);
  std::vector<double> start(all.size()), end(all.size(), -1.0);
  std::vector<Event> events;
  std::size_t handed = 0;
  double now = 0.0;
  while (handed < all.size()) {
    while (running.size() < threads) {
      std::optional<std::size_t> next;
      for (std::size_t i = handed; i < std::min(all.size(), handed + window); ++i) {
        if (begun[i]) continue;
        next = i;
        if (pick == Pick::oldest) break;
      }
      if (!next) break;
      running.push_back({*next, all[*next].seconds});
      begun[*next] = true;
      start[*next] = now;
    }
    const auto holding = static_cast<double>(std::count_if(
        running.begin(), running.end(), [&](const Running& r) { return all[r.index].gil > 0.0; }));
    const auto speed = [&](const Running& r) {
      const double g = all[r.index].gil;
      return 1.0 / ((1.0 - g) + g * holding);
    };
    double step = std::numeric_limits<double>::infinity();
    for (const auto& r : running) step = std::min(step, r.left / speed(r));
    now += step;
    for (auto& r : running) r.left -= step * speed(r);
    std::erase_if(running, [&](const Running& r) {
      if (r.left > 1e-12 * all[r.index].seconds) return false;
      end[r.index] = now;
      events.push_back(
          {now, all[r.index].cell, false, {all[r.index].seconds, now - start[r.index], 1}});
      return true;
    });
    for (; handed < all.size() && end[handed] >= 0.0; ++handed) {
      events.push_back({now, all[handed].cell, true, {}});
    }
  }
  return events;
}

// Tells `tracker` of `event`.
void tell(ProgressTracker& tracker, const Event& event) {
  if (event.handed) {
    tracker.handed_on(event.cell);
  } else {
    tracker.finished(event.cell, event.seconds, event.used);
  }
}

// No replication holds the GIL.
double engine_only(std::size_t) { return 0.0; }

// The cells an experiment's text makes, with their values, its means file
// (`shared`, as the text names it) read from ../shared/data.
io::Experiment experiment_of(std::string text, const std::string& shared,
                             const std::filesystem::path& directory,
                             const std::vector<io::FlagValues>& overrides = {}) {
  const auto at = text.find(shared);
  EXPECT_NE(at, std::string::npos) << "the means " << shared;
  if (at != std::string::npos) {
    text.replace(at, shared.size(),
                 testing::shared_data(std::filesystem::path(shared).filename().string()));
  }
  return io::load_experiment_text(text, "test experiment", directory, overrides);
}

std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

// docs/command-line.md's T sweep, PF-UCB and then local-ucb on the
// synthetic game, alpha 0 to 1, T = 10^4 to 10^7, 100 replications per cell
// (a local-ucb replication at T = 10^7 costs 10^5 times a PF-UCB one at
// 10^4), each replication its estimated cost times its algorithm's misfit
// (the model wrong by 0.6 or 1.5: wider than the -24% to +29% cost.cpp
// measured, so the tracker must learn each algorithm's rate), on two
// threads. A tenth of the way in, the remaining time the tracker estimates
// is within 25% of the time the run then takes (0.98 of it; 0.96 to 1.02
// over 5 noise seeds); done/total at the average rate, the ETA issue 15
// reported, is not (it says under a tenth of it).
TEST(ProgressEta, ATenthIntoACheapThenCostlySweepItIsWithin25PercentOfTheTimeLeft) {
  const auto sweep = experiment_of(
      "replications = 100\nalpha = [0, 0.2, 0.5, 0.9, 1]\nhorizon = [1e4, 1e5, 1e6, 1e7]\n"
      "[algorithm]\nname = [\"pf-ucb\", \"local-ucb\"]\n"
      "[instance]\nmeans = \"synthetic_4x9.csv\"\n",
      "synthetic_4x9.csv", ".");
  ASSERT_EQ(sweep.cells.size(), 40u);
  const auto work = cell_work(sweep.cells, sweep.values,
                              std::vector<sim::ReplicationRange>(sweep.cells.size(), {0, 100}));
  const auto misfit = [&](std::size_t c) { return work[c].algorithm == "pf-ucb" ? 0.6 : 1.5; };
  const auto run = simulated_run(
      replications(
          work, [&](std::size_t c) { return 1e-9 * work[c].cost * misfit(c); }, engine_only, 26),
      2);
  const double end = run.back().seconds;

  ProgressTracker tracker(work, 2);
  std::size_t i = 0;
  for (; run[i].seconds < end / 10; ++i) tell(tracker, run[i]);
  const double now = run[i - 1].seconds;
  const auto estimate = tracker.at(now);
  const double left = end - now;
  ASSERT_TRUE(estimate.remaining);
  SCOPED_TRACE(::testing::Message()
               << "a tenth in: " << now << " s of " << end << " s, " << estimate.done << " of "
               << estimate.total << " replications, estimated " << *estimate.remaining
               << " s left");
  EXPECT_GE(estimate.cell, 20u) << "the costly cells have begun";
  EXPECT_NEAR(*estimate.remaining / left, 1.0, 0.25);
  const double unweighted = now * static_cast<double>(estimate.total - estimate.done) /
                            static_cast<double>(estimate.done);
  EXPECT_LT(unweighted / left, 0.75) << "done/total at the average rate would pass too";
}

// The estimate against the truth along a run: a tenth of the way in, half
// way, and the worst ratio (estimate over truth, or its inverse) after
// `from` seconds, just before and just after every hand-on, while
// `until_left` seconds or more are left.
struct Trace {
  double end = 0.0;
  double tenth = 0.0, tenth_eta = 0.0;
  double half = 0.0, half_eta = 0.0;
  double worst = 1.0, worst_at = 0.0;
  double tenth_ratio() const { return tenth_eta / (end - tenth); }
  double half_ratio() const { return half_eta / (end - half); }
};

Trace replay(const std::vector<CellWork>& work, const std::vector<Event>& run, unsigned workers,
             double from = 60.0, double until_left = 10.0) {
  Trace trace;
  trace.end = run.back().seconds;
  ProgressTracker tracker(work, workers);
  const auto look = [&](double now) {
    const auto estimate = tracker.at(now);
    const double left = trace.end - now;
    if (now < from || left < until_left || !estimate.remaining) return;
    const double ratio = *estimate.remaining / left;
    const double off = std::max(ratio, 1.0 / ratio);
    if (off > trace.worst) trace.worst = off, trace.worst_at = now;
  };
  for (std::size_t i = 0; i < run.size(); ++i) {
    look(run[i].seconds);
    // the last event before a tenth, and before half, of the run
    for (auto [share, when, eta] : {std::tuple{0.1, &trace.tenth, &trace.tenth_eta},
                                    std::tuple{0.5, &trace.half, &trace.half_eta}}) {
      if (i > 0 && run[i - 1].seconds < share * trace.end && run[i].seconds >= share * trace.end) {
        *when = run[i - 1].seconds;
        *eta = tracker.at(*when).remaining.value_or(0.0);
      }
    }
    tell(tracker, run[i]);
    look(run[i].seconds);
  }
  return trace;
}

std::string described(const Trace& t, double from = 60.0) {
  return fmt::format(
      "run of {:.1f} s; a tenth in ({:.1f} s) ETA {:.1f} s for {:.1f} s left ({:.2f}); half way "
      "({:.1f} s) ETA {:.1f} s for {:.1f} s left ({:.2f}); after {:.0f} s at worst {:.2f} times "
      "off (at {:.1f} s)",
      t.end, t.tenth, t.tenth_eta, t.end - t.tenth, t.tenth_ratio(), t.half, t.half_eta,
      t.end - t.half, t.half_ratio(), from, t.worst, t.worst_at);
}

// A data file's rows (comma-separated, after its comments and header).
std::vector<std::vector<std::string>> csv_rows(const std::string& name) {
  std::ifstream in(std::string(PFMAB_SOURCE_DIR) + "/tests/integration/data/" + name);
  std::vector<std::vector<std::string>> rows;
  bool header = true;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (std::exchange(header, false)) continue;
    std::vector<std::string> fields;
    std::istringstream row(line);
    for (std::string field; std::getline(row, field, ',');) fields.push_back(field);
    rows.push_back(std::move(fields));
  }
  EXPECT_FALSE(rows.empty()) << name;
  return rows;
}

// Issue 26's "an ETA that knows", on the study whose ETA said 17 hours for
// a 10-minute run once pf-alloc was in it: results/study/experiment.toml
// with its six algorithms (pf-ucb, pf-ucb-enhanced, local-ucb,
// centralized-ucb, explore-then-commit, pf-alloc), five alphas, four C, two
// games: 180 cells of 20 replications. A replication takes the processor
// time measured for its cell on the real program (data/study_costs.csv,
// made by data/study_costs.sh: from 0.05 ms for explore-then-commit to
// 1 s for centralized-ucb, pf-alloc 1.3 and 2.6 ms since issue 26's solver,
// where it was 25 and 190 ms), on two threads. A tenth in (18 s of 186 s)
// the ETA is 0.86 of the time left, half way 0.94, and after the first
// minute it is at worst 1.84 times off, while 10 s or more are left (at
// 142 s, in the 20x10 game's centralized-ucb cells, which cost more per
// unit of estimated cost than local-ucb's before them). From the times
// between hand-ons (before issue 38) it was 0.79, 0.87 and 1.74.

// Each cell's measured seconds per replication, by "game algorithm alpha C"
// (C "-" for the baselines, which never pay for it).
std::map<std::string, double> measured_costs() {
  std::map<std::string, double> costs;
  for (const auto& fields : csv_rows("study_costs.csv")) {
    if (fields.size() != 5) continue;
    costs[fields[0] + " " + fields[1] + " " + fields[2] + " " + fields[3]] = std::stod(fields[4]);
  }
  return costs;
}

// The study's cells in its order.
io::Experiment study() {
  const auto folder = std::filesystem::path(PFMAB_SOURCE_DIR) / "results/study";
  return experiment_of(file_text(folder / "experiment.toml"),
                       "../../../shared/data/movielens_10x40.csv", folder,
                       {io::flag_values("algorithm.name",
                                        "pf-ucb,pf-ucb-enhanced,local-ucb,centralized-"
                                        "ucb,explore-then-commit,pf-alloc")});
}

// The measured seconds of a replication of each cell.
std::vector<double> study_seconds(const std::vector<sim::Cell>& cells) {
  const auto costs = measured_costs();
  std::vector<double> seconds;
  for (const auto& cell : cells) {
    const auto& spec = cell.spec();
    const auto key =
        fmt::format("{} {} {} ", std::filesystem::path(spec.instance_name).stem().string(),
                    cell.algorithm().name(), spec.alpha);
    auto found = costs.find(key + fmt::format("{}", spec.comm_cost));
    if (found == costs.end()) found = costs.find(key + "-");
    EXPECT_NE(found, costs.end()) << key << ": not measured";
    // below what the measurement resolves (about 25 us), 10 us
    seconds.push_back(found == costs.end() ? 0.0 : std::max(found->second, 1e-5));
  }
  return seconds;
}

// The study's run on two threads.
std::vector<Event> study_run(const std::vector<CellWork>& work,
                             const std::vector<double>& seconds) {
  return simulated_run(replications(
                           work, [&](std::size_t c) { return seconds[c]; }, engine_only, 26),
                       2);
}

TEST(ProgressEta, OnTheStudyWithPfAllocATenthInItIsWithin25PercentAndNeverThreeTimesOff) {
  const auto experiment = study();
  const auto& cells = experiment.cells;
  ASSERT_EQ(cells.size(), 180u);
  const auto work = cell_work(cells, experiment.values,
                              std::vector<sim::ReplicationRange>(cells.size(), {0, 20}));
  const auto trace = replay(work, study_run(work, study_seconds(cells)), 2);
  SCOPED_TRACE(described(trace));
  EXPECT_NEAR(trace.tenth_ratio(), 1.0, 0.25);
  EXPECT_NEAR(trace.half_ratio(), 1.0, 0.25);
  EXPECT_LE(trace.worst, 3.0);
}

// The same study where the estimate before the run is far off for
// pf-alloc. With the estimate of commit e8d01cb, fitted before issue 26's
// solver (a solve of 10.6 K^2 + 3.4 M K us a phase after the first: 190 ms
// on MovieLens, where pf-alloc now takes 2.6 ms), pf-alloc's cost is put at
// 15 (20x10) to 70 (MovieLens) times the truth; without its planning in
// the estimate (the run), at a twentieth to a thirtieth of it.
// Either way pf-alloc sets only its own cells' rate: after the first minute
// the ETA is at worst 1.86 and 1.83 times off (the refitted estimate
// 1.84), half way 0.94 and 0.95 of the time left. (The ETA was 200
// times off.)
double stale_planning_cost(const sim::Cell& cell) {
  const auto clients = static_cast<double>(cell.instance().clients());
  const auto arms = static_cast<double>(cell.instance().arms());
  const double phases = std::ceil(std::log2(static_cast<double>(cell.horizon()) / (20 * arms) + 1));
  return (phases - 1) * (10'600.0 * arms * arms + 3'400.0 * clients * arms);
}

TEST(ProgressEta, OnTheStudyAMisjudgedPfAllocSetsOnlyItsOwnRate) {
  const auto experiment = study();
  const auto& cells = experiment.cells;
  const auto work = cell_work(cells, experiment.values,
                              std::vector<sim::ReplicationRange>(cells.size(), {0, 20}));
  const auto run = study_run(work, study_seconds(cells));

  auto stale = work;
  auto unplanned = work;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const double planning = cells[c].algorithm().planning_cost(cells[c]);
    if (work[c].algorithm != "pf-alloc") continue;
    stale[c].cost += stale_planning_cost(cells[c]) - planning;
    unplanned[c].cost -= planning;
  }
  const auto over = replay(stale, run, 2);
  EXPECT_LE(over.worst, 3.0) << "estimated as at e8d01cb: " << described(over);
  const auto under = replay(unplanned, run, 2);
  EXPECT_LE(under.worst, 3.0) << "without its planning: " << described(under);
  EXPECT_NEAR(under.half_ratio(), 1.0, 0.25) << described(under);
}

// Issue 38's sweep (data/mixed_sweep.toml): a Python algorithm
// (pfmab.examples.epsilon_greedy's, here its stand-in: the engine sees a
// Python class as it sees this one) with first_phase 1, 10 and 100 (2.0 to
// 4.3 ms a replication), then pf-ucb and pf-alloc (0.1 to 2 ms), then
// local-ucb and centralized-kl-ucb at five alphas (6 ms; 0.5 s at alpha 1,
// 0.75 s at 0, 2.8 s between), MovieLens 10x40: 25 cells, 4,540
// replications. A replication takes the processor time measured for its
// cell on the real program (data/mixed_costs.csv, made by
// data/mixed_costs.py), the Python ones holding the GIL for the share of it
// their policy's calls take (0.93 to 0.97), on one thread, and on two
// taking the oldest or the newest replication the window lets begin. A
// tenth in, the ETA is 1.01 of the time left on one thread (4.9 s of
// 49.1 s), 0.99 and 0.95 on two (2.9 s of 28.7 s); half way 1.11, 1.09 and
// 1.06. Over 5 noise seeds and the 4 schedules, 0.95 to 1.04 a tenth in and
// 0.84 to 1.29 half way: 1.29 where half way falls as centralized-kl-ucb's
// alpha 0 cell ends on two threads (1.14 times its estimate, lent to the
// cells after it, which cost 1.00, and its last two replications in flight
// taken as half done where they are almost done). A tenth in, only the
// Python cells have run, and the rest is priced at the estimate's
// nanosecond; between pf-alloc's cells and centralized-kl-ucb's the ETA is
// up to 2.7 times under for a few seconds (pf-alloc's cells at alpha 0,
// which cost half their estimate, then set the machine's rate).

// The sweep's cells with their measured seconds and GIL shares.
struct Measured {
  io::Experiment experiment;
  std::vector<double> seconds, gil;
};

Measured mixed_sweep() {
  testing::register_python_stand_in();
  const auto data = std::filesystem::path(PFMAB_SOURCE_DIR) / "tests/integration/data";
  Measured measured{experiment_of(file_text(data / "mixed_sweep.toml"),
                                  "../../../../shared/data/movielens_10x40.csv", data),
                    {},
                    {}};
  const auto& cells = measured.experiment.cells;
  const auto rows = csv_rows("mixed_costs.csv");
  EXPECT_EQ(rows.size(), cells.size()) << "a row of mixed_costs.csv for each cell";
  for (std::size_t c = 0; c < std::min(rows.size(), cells.size()); ++c) {
    const auto& row = rows[c];
    EXPECT_EQ(row.size(), 7u);
    EXPECT_EQ(row[1], cells[c].algorithm().name()) << "cell " << c;
    EXPECT_EQ(std::stod(row[2]), cells[c].spec().alpha) << "cell " << c;
    measured.seconds.push_back(std::stod(row[5]));
    measured.gil.push_back(std::stod(row[6]));
  }
  return measured;
}

TEST(ProgressEta,
     OnASweepMixingAPythonAlgorithmWithTheEnginesATenthInAndHalfWayItIsWithin25Percent) {
  const auto measured = mixed_sweep();
  const auto& experiment = measured.experiment;
  ASSERT_EQ(measured.seconds.size(), experiment.cells.size());
  std::vector<sim::ReplicationRange> ranges;
  for (std::size_t c = 0; c < experiment.cells.size(); ++c) {
    ranges.push_back({0, experiment.replications(c)});
  }
  const auto work = cell_work(experiment.cells, experiment.values, ranges);
  const auto all = replications(
      work, [&](std::size_t c) { return measured.seconds[c]; },
      [&](std::size_t c) { return measured.gil[c]; }, 26);
  for (const auto& [threads, pick] :
       {std::pair{1u, Pick::oldest}, std::pair{2u, Pick::oldest}, std::pair{2u, Pick::newest}}) {
    const auto trace = replay(work, simulated_run(all, threads, pick), threads, 0.0, 1.0);
    SCOPED_TRACE(::testing::Message()
                 << threads << " threads, " << (pick == Pick::oldest ? "oldest" : "newest")
                 << " first: " << described(trace, 0.0));
    EXPECT_NEAR(trace.tenth_ratio(), 1.0, 0.25);
    EXPECT_NEAR(trace.half_ratio(), 1.0, 0.25);
  }
}

}  // namespace
}  // namespace pfmab::io
