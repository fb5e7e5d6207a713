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
#include <random>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/io/progress.hpp"
#include "pfmab/sim/runner.hpp"

#include "fixtures.hpp"

namespace pfmab::io {
namespace {

struct HandOn {
  std::size_t cell;
  double seconds;
};

// When each replication of `work` is handed on, on `threads` threads.
std::vector<HandOn> simulated_run(const std::vector<CellWork>& work,
                                  double (*misfit)(const CellWork&), unsigned threads,
                                  std::uint64_t seed) {
  std::vector<HandOn> run;
  std::mt19937_64 noise(seed);
  std::vector<double> thread_free(threads, 0.0);
  const std::size_t window = sim::max_in_flight(threads);
  for (std::size_t c = 0; c < work.size(); ++c) {
    for (std::uint64_t r = 0; r < work[c].replications; ++r) {
      const double u = std::ldexp(static_cast<double>(noise() >> 11), -53);  // in [0, 1)
      const double seconds = 1e-9 * work[c].cost * misfit(work[c]) * (0.7 + 0.6 * u);
      auto& thread = *std::min_element(thread_free.begin(), thread_free.end());
      const double start =
          std::max(thread, run.size() >= window ? run[run.size() - window].seconds : 0.0);
      thread = start + seconds;
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
  const auto run = simulated_run(
      work, [](const CellWork& cell) { return cell.algorithm == "pf-ucb" ? 0.6 : 1.5; }, 2, 15);
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

}  // namespace
}  // namespace pfmab::io
