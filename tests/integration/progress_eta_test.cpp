// Issue 15's "progress that knows the cost", on the cells of a mixed sweep
// and in the order a run hands them on: docs/command-line.md's T sweep,
// PF-UCB and then local-ucb on the synthetic game, alpha 0 to 1, T = 10^4
// to 10^7, 100 replications per cell (a local-ucb replication at T = 10^7
// costs 10^5 times a PF-UCB one at 10^4). A tenth of the way in, the
// remaining time the tracker estimates is within 25% of the time the run
// then takes; done/total at the average rate, the ETA the issue reported,
// is not (it says under a tenth of it).
//
// The run is simulated, on a clock of its own: a test on a real run's clock
// failed on CI. Processor time counts what the thread pool's idle workers
// spin, and wall time what other jobs take; on an idle 2-core machine either
// put a tenth-in estimate anywhere from 0.72 to 1.43 of the truth on a
// 2-second run. Here a replication takes its estimated cost times its
// algorithm's misfit (the model wrong by 0.6 or 1.5: wider than the -24% to
// +29% cost.cpp measured, so the tracker must learn each algorithm's rate),
// times +-30% of noise from a fixed seed. Two threads take replications in
// order, at most sim::max_in_flight(2) ahead of the last handed on, and hand
// them on in order, as sim::run_sweep's pipeline does. In this idealised
// schedule a thread takes a replication only once it is free, so fewer are
// in flight than the 3/4 of the tokens that came closest on real runs, and
// the estimate comes in under the truth: 0.86 to 0.91 of it over 5 noise
// seeds, whatever the misfits. The ETA on real runs is measured in
// docs/command-line.md.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "pfmab/io/experiment.hpp"
#include "pfmab/io/progress.hpp"
#include "pfmab/sim/runner.hpp"

#include "fixtures.hpp"

namespace pfmab::io {
namespace {

struct HandOn {
  std::size_t cell;
  double seconds;
};

// When each replication of `work` is handed on, on `threads` threads, a
// replication of cell c taking seconds(c) times +-30% of noise.
template <class Seconds>
std::vector<HandOn> simulated_run(const std::vector<CellWork>& work, Seconds seconds,
                                  unsigned threads, std::uint64_t seed) {
  std::vector<HandOn> run;
  std::mt19937_64 noise(seed);
  std::vector<double> thread_free(threads, 0.0);
  const std::size_t window = sim::max_in_flight(threads);
  for (std::size_t c = 0; c < work.size(); ++c) {
    for (std::uint64_t r = 0; r < work[c].replications; ++r) {
      const double u = std::ldexp(static_cast<double>(noise() >> 11), -53);  // in [0, 1)
      auto& thread = *std::min_element(thread_free.begin(), thread_free.end());
      const double start =
          std::max(thread, run.size() >= window ? run[run.size() - window].seconds : 0.0);
      thread = start + seconds(c) * (0.7 + 0.6 * u);
      run.push_back({c, std::max(thread, run.empty() ? 0.0 : run.back().seconds)});
    }
  }
  return run;
}

TEST(ProgressEta, ATenthIntoACheapThenCostlySweepItIsWithin25PercentOfTheTimeLeft) {
  const auto game = testing::synthetic_instance();
  std::vector<sim::Cell> cells;
  std::vector<sim::ReplicationRange> ranges;
  for (const std::string_view algorithm : {"pf-ucb", "local-ucb"}) {
    for (const double alpha : {0.0, 0.2, 0.5, 0.9, 1.0}) {
      for (const std::uint64_t horizon : {10'000, 100'000, 1'000'000, 10'000'000}) {
        sim::CellSpec spec;
        spec.instance = game;
        spec.algorithm = testing::algorithm_named(algorithm);
        spec.alpha = alpha;
        spec.horizon = horizon;
        cells.emplace_back(spec, cells.size());
        ranges.push_back({0, 100});
      }
    }
  }
  const auto work = cell_work(cells, ranges);
  const auto misfit = [&](std::size_t c) { return work[c].algorithm == "pf-ucb" ? 0.6 : 1.5; };
  const auto run = simulated_run(
      work, [&](std::size_t c) { return 1e-9 * work[c].cost * misfit(c); }, 2, 26);
  const double end = run.back().seconds;

  ProgressTracker tracker(work, sim::max_in_flight(2));
  std::size_t i = 0;
  for (; run[i].seconds < end / 10; ++i) tracker.finished(run[i].cell, run[i].seconds);
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

// Issue 26's "an ETA that knows", on the study whose ETA said 17 hours for
// a 10-minute run once pf-alloc was in it: results/study/experiment.toml
// with its six algorithms (pf-ucb, pf-ucb-enhanced, local-ucb,
// centralized-ucb, explore-then-commit, pf-alloc), five alphas, four C, two
// games: 180 cells of 20 replications. A replication takes the processor
// time measured for its cell on the real program (data/study_costs.csv,
// made by data/study_costs.sh: from 0.05 ms for explore-then-commit to
// 1 s for centralized-ucb, pf-alloc 1.3 and 2.6 ms since issue 26's solver,
// where it was 25 and 190 ms) times +-30% of noise, on two simulated
// threads as above. A tenth in (18 s of 186 s) the ETA is 0.79 of the time
// left, half way 0.87, and after the first minute it is at worst 1.74
// times off, while 10 s or more are left (at 144 s, in the 20x10 game's
// centralized-ucb cells, which cost more per unit of estimated cost than
// local-ucb's before them). With the slot-by-slot terms of e8d01cb
// (10.4 + 1.0 K ns per client and slot, engine/src/sim/cost.cpp), which
// weigh the 20x10 game at 0.65 of MovieLens per unit of cost, it was 0.68
// a tenth in and 0.70 half way: the study is now almost all local-ucb and
// centralized-ucb.

// Each cell's measured seconds per replication, by "game algorithm alpha C"
// (C "-" for the baselines, which never pay for it).
std::map<std::string, double> measured_costs() {
  std::ifstream in(std::string(PFMAB_SOURCE_DIR) + "/tests/integration/data/study_costs.csv");
  std::map<std::string, double> costs;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("game,", 0) == 0) continue;
    std::vector<std::string> fields;
    std::istringstream row(line);
    for (std::string field; std::getline(row, field, ',');) fields.push_back(field);
    if (fields.size() != 5) continue;
    costs[fields[0] + " " + fields[1] + " " + fields[2] + " " + fields[3]] = std::stod(fields[4]);
  }
  return costs;
}

// The study's cells in its order, MovieLens read from ../shared/data.
std::vector<sim::Cell> study_cells() {
  const auto study = std::filesystem::path(PFMAB_SOURCE_DIR) / "results/study";
  std::ifstream in(study / "experiment.toml");
  std::string text{std::istreambuf_iterator<char>(in), {}};
  const std::string movielens = "../../../shared/data/movielens_10x40.csv";
  const auto at = text.find(movielens);
  EXPECT_NE(at, std::string::npos) << "the study's means";
  if (at != std::string::npos) {
    text.replace(at, movielens.size(), testing::shared_data("movielens_10x40.csv"));
  }
  return io::load_experiment_text(text, "study", study,
                                  {io::flag_values("algorithm.name",
                                                   "pf-ucb,pf-ucb-enhanced,local-ucb,centralized-"
                                                   "ucb,explore-then-commit,pf-alloc")})
      .cells;
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

// The estimate against the truth along a run: a tenth of the way in, half
// way, and the worst ratio (estimate over truth, or its inverse) after the
// first minute, just before and just after every hand-on, while 10 s or
// more are left. (How far the replications in flight have got the tracker
// cannot see: it takes them as 3/4 done, where in this schedule most have
// not begun. At the end of the study's centralized-ucb cells, 8 of about
// 1 s on 2 threads, that puts it 3 to 4 s under the truth, most of what is
// left in the last seconds.)
struct Trace {
  double end = 0.0;
  double tenth = 0.0, tenth_eta = 0.0;
  double half = 0.0, half_eta = 0.0;
  double worst = 1.0, worst_at = 0.0;
};

Trace replay(const std::vector<CellWork>& work, const std::vector<HandOn>& run) {
  Trace trace;
  trace.end = run.back().seconds;
  ProgressTracker tracker(work, sim::max_in_flight(2));
  const auto look = [&](double now) {
    const auto estimate = tracker.at(now);
    const double left = trace.end - now;
    if (now < 60.0 || left < 10.0 || !estimate.remaining) return;
    const double ratio = *estimate.remaining / left;
    const double off = std::max(ratio, 1.0 / ratio);
    if (off > trace.worst) trace.worst = off, trace.worst_at = now;
  };
  for (std::size_t i = 0; i < run.size(); ++i) {
    look(run[i].seconds);
    // the last hand-on before a tenth, and before half, of the run
    for (auto [share, when, eta] : {std::tuple{0.1, &trace.tenth, &trace.tenth_eta},
                                    std::tuple{0.5, &trace.half, &trace.half_eta}}) {
      if (i > 0 && run[i - 1].seconds < share * trace.end && run[i].seconds >= share * trace.end) {
        *when = run[i - 1].seconds;
        *eta = tracker.at(*when).remaining.value_or(0.0);
      }
    }
    tracker.finished(run[i].cell, run[i].seconds);
    look(run[i].seconds);
  }
  return trace;
}

std::string described(const Trace& t) {
  return fmt::format(
      "run of {:.0f} s; a tenth in ({:.0f} s) ETA {:.0f} s for {:.0f} s left; half way ({:.0f} s) "
      "ETA {:.0f} s for {:.0f} s left; after the first minute at worst {:.2f} times off (at {:.0f} "
      "s)",
      t.end, t.tenth, t.tenth_eta, t.end - t.tenth, t.half, t.half_eta, t.end - t.half, t.worst,
      t.worst_at);
}

TEST(ProgressEta, OnTheStudyWithPfAllocATenthInItIsWithin25PercentAndNeverThreeTimesOff) {
  const auto cells = study_cells();
  ASSERT_EQ(cells.size(), 180u);
  const auto seconds = study_seconds(cells);
  const auto work = cell_work(cells, std::vector<sim::ReplicationRange>(cells.size(), {0, 20}));
  const auto run = simulated_run(
      work, [&](std::size_t c) { return seconds[c]; }, 2, 26);
  const auto trace = replay(work, run);
  SCOPED_TRACE(described(trace));
  EXPECT_NEAR(trace.tenth_eta / (trace.end - trace.tenth), 1.0, 0.25);
  EXPECT_NEAR(trace.half_eta / (trace.end - trace.half), 1.0, 0.25);
  EXPECT_LE(trace.worst, 3.0);
}

// The same study where the estimate before the run is far off for
// pf-alloc. With the estimate of commit e8d01cb, fitted before issue 26's
// solver (a solve of 10.6 K^2 + 3.4 M K us a phase after the first: 190 ms
// on MovieLens, where pf-alloc now takes 2.6 ms), pf-alloc's cost is put at
// 15 (20x10) to 70 (MovieLens) times the truth; without its planning in
// the estimate (the run), at a twentieth to a thirtieth of it.
// Either way pf-alloc sets only its own cells' rate: after the first minute
// the ETA is at worst 1.80 and 1.73 times off (the refitted estimate 1.74),
// half way 0.87 of the time left as with the refitted estimate. (The
// issue's ETA was 200 times off.)
double stale_planning_cost(const sim::Cell& cell) {
  const auto clients = static_cast<double>(cell.instance().clients());
  const auto arms = static_cast<double>(cell.instance().arms());
  const double phases = std::ceil(std::log2(static_cast<double>(cell.horizon()) / (20 * arms) + 1));
  return (phases - 1) * (10'600.0 * arms * arms + 3'400.0 * clients * arms);
}

TEST(ProgressEta, OnTheStudyAMisjudgedPfAllocSetsOnlyItsOwnRate) {
  const auto cells = study_cells();
  const auto seconds = study_seconds(cells);
  const auto work = cell_work(cells, std::vector<sim::ReplicationRange>(cells.size(), {0, 20}));
  const auto run = simulated_run(
      work, [&](std::size_t c) { return seconds[c]; }, 2, 26);

  auto stale = work;
  auto unplanned = work;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const double planning = cells[c].algorithm().planning_cost(cells[c]);
    if (work[c].algorithm != "pf-alloc") continue;
    stale[c].cost += stale_planning_cost(cells[c]) - planning;
    unplanned[c].cost -= planning;
  }
  const auto over = replay(stale, run);
  EXPECT_LE(over.worst, 3.0) << "estimated as at e8d01cb: " << described(over);
  const auto under = replay(unplanned, run);
  EXPECT_LE(under.worst, 3.0) << "without its planning: " << described(under);
  EXPECT_NEAR(under.half_eta / (under.end - under.half), 1.0, 0.25) << described(under);
}

}  // namespace
}  // namespace pfmab::io
