// Statistical checks of PF-UCB on the paper's synthetic game, with fixed
// seeds (deterministic) and tolerances derived in the comments.
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/sim/runner.hpp"

#include "fixtures.hpp"
#include "run_cli.hpp"

namespace pfmab::sim {
namespace {

// Lemma 1: the good event G (every mixed estimate within B_p) fails with
// probability at most 2MK/T = 2 * 4 * 9 / 1e6 = 7.2e-5 per replication, and on
// G every client fixes its mixed-optimal arm. With R = 500 replications the
// expected number of failures is at most 0.036; the test allows 5 (99%), and
// P(Poisson(0.036) >= 6) < 1e-11, so a failure means a bug, not bad luck.
TEST(Identification, SyntheticGameEveryClientFixesItsMixedOptimalArm) {
  const auto table = model::read_means_csv(testing::shared_data("synthetic_4x9.csv"));
  const auto instance = std::make_shared<const model::Instance>(table, families::RewardFamily{});
  const std::vector<double> alphas{0.2, 0.5, 0.9, 1.0};
  std::vector<Cell> cells;
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    CellSpec spec;
    spec.algorithm = algorithms::pf_ucb();
    spec.instance = instance;
    spec.alpha = alphas[i];
    spec.horizon = 1'000'000;
    cells.emplace_back(spec, i);
  }
  RunOptions options;
  options.seed = 20210413;
  options.replications = 500;
  options.threads = 2;
  const auto results = run_sweep(cells, options);
  for (std::size_t c = 0; c < cells.size(); ++c) {
    std::size_t identified = 0;
    for (const auto& r : results[c]) identified += r.identified() ? 1 : 0;
    SCOPED_TRACE(alphas[c]);
    EXPECT_GE(identified, 495u) << identified << " of 500 replications identified";
  }
}

// pf-alloc (docs/pf-alloc.md) never eliminates: O_m is the arm a client
// fixed at confidence log T or, where that test has not passed, the arm it
// pulled most. At T = 1e7 its regret is about 1.3 C* log T, a few thousand
// pulls off the best arm out of 1e7 per client, so a client pulls most an
// arm that is not mixed-optimal only if its estimates ranked the arms wrong
// for most of the horizon. The issue asks for 99% at every alpha of the
// paper: 300 replications per alpha, at least 297 identified. (Measured with
// this seed: 300 of 300 at every alpha; with 0 failures in 300 the failure
// rate is below 1% at 95% confidence, so a pass is evidence, not luck.)
TEST(Identification, PfAllocSyntheticGameAtTenToTheSeven) {
  const auto cells = testing::cells_of_experiment(R"(
      horizon = 1e7
      alpha = [0, 0.2, 0.5, 0.9, 1]
      [instance]
      means = "synthetic_4x9.csv"
      [algorithm]
      name = "pf-alloc"
  )");
  RunOptions options;
  options.seed = 20210413;
  options.replications = 300;
  options.threads = 2;
  const auto results = run_sweep(cells, options);
  for (std::size_t c = 0; c < cells.size(); ++c) {
    std::size_t identified = 0;
    for (const auto& r : results[c]) identified += r.identified() ? 1 : 0;
    SCOPED_TRACE(cells[c].spec().alpha);
    EXPECT_GE(identified, 297u) << identified << " of 300 replications identified";
  }
}

}  // namespace
}  // namespace pfmab::sim
