// Unit tests of the baselines (local-ucb, centralized-ucb): hand-computed
// trajectories on noiseless games, a plain UCB1 on the same streams, what
// they report, and determinism.
#include "pfmab/algorithms/baselines.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <pcg_random.hpp>

#include "pfmab/model/means_table.hpp"
#include "pfmab/rng/samplers.hpp"
#include "pfmab/rng/streams.hpp"
#include "pfmab/sim/checkpoints.hpp"
#include "pfmab/sim/trajectory.hpp"

#include "fixtures.hpp"
#include "run_cli.hpp"

namespace pfmab::sim {
namespace {

using testing::digest_of;
using testing::instance_of;
using testing::spec_of;
using testing::synthetic_instance;

// Bernoulli rewards with means 0 and 1 are noiseless (the thresholds are
// exactly 0 and 2^32) while the UCB bonus keeps its scale 1, so the
// trajectory can be followed by hand. M = 2, K = 3:
//   local  client 0: [1, 0, 0]   client 1: [0, 1, 0]   global [0.5, 0.5, 0]
//   mixed (alpha = 1/2): c0 [0.75, 0.25, 0]  gaps [0, 0.5, 0.75]
//                        c1 [0.25, 0.75, 0]  gaps [0.5, 0, 0.75]
// Checkpoints at every slot of T = 10.
struct BaselinesNoiseless : ::testing::Test {
  static CellSpec spec(std::string_view algorithm, std::uint64_t horizon = 10) {
    auto s = spec_of(instance_of({{1, 0, 0}, {0, 1, 0}}, families::RewardFamily{"bernoulli"}),
                     algorithm, 0.5, horizon);
    s.checkpoints = {0, horizon};
    return s;
  }
  // series[i] is the sum of per_slot[0..i]
  static std::vector<double> cumulative(std::vector<double> per_slot) {
    for (std::size_t i = 1; i < per_slot.size(); ++i) per_slot[i] += per_slot[i - 1];
    return per_slot;
  }
};

// local-ucb, client 0 (client 1 is the same with arms 0 and 1 swapped; on its
// tie at slot 8 between arms 0 and 2 it takes arm 0):
//   slots 1-3: arms 0, 1, 2 (n = [1, 1, 1], means [1, 0, 0])
//   slot 4: 1 + sqrt(2 ln 4 / 1) = 2.665 > sqrt(2 ln 4) = 1.665: arm 0
//   slot 7: 1 + sqrt(2 ln 7 / 4) = 1.986 > sqrt(2 ln 7) = 1.973: arm 0 (n0 = 5)
//   slot 8: 1 + sqrt(2 ln 8 / 5) = 1.912 < sqrt(2 ln 8) = 2.039, a tie of
//           arms 1 and 2: arm 1
//   slot 9: arm 2, sqrt(2 ln 9) = 2.096 against 1.937 (arm 0), 1.482 (arm 1)
//   slot 10: 1 + sqrt(2 ln 10 / 5) = 1.960 > sqrt(2 ln 10 / 2) = 1.517: arm 0
// Arms per slot, c0 / c1: 0/0 1/1 2/2 0/1 0/1 0/1 0/1 1/0 2/2 0/1.
TEST_F(BaselinesNoiseless, LocalUcbHandTrajectory) {
  const Cell cell(spec("local-ucb"), 0);
  ASSERT_EQ(cell.checkpoints(), (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  const auto r = run_replication(cell, 7, 0);
  EXPECT_EQ(r.series.regret, cumulative({0.5, 0.5, 1.5, 0, 0, 0, 0, 1, 1.5, 0}));
  // reward 1 for each client on its own best arm
  EXPECT_EQ(r.series.local_reward, cumulative({1, 1, 0, 2, 2, 2, 2, 0, 0, 2}));
  EXPECT_EQ(r.fixed_arm, (std::vector<std::int32_t>{0, 1}));  // pulled 6 times of 10
  EXPECT_EQ(r.fixed_optimal, (std::vector<std::uint8_t>{1, 1}));
}

// centralized-ucb, alpha = 1/2: w = 3/4 (own), 1/4 (other); mu_hat exact.
//   slots 1-3: both clients arms 0, 1, 2.
//   slot 4: every T = 1, so every width is sqrt(2 ln 4 (9/16 + 1/16)) = 1.316:
//           the mixed estimates decide, c0 arm 0 (0.75), c1 arm 1.
//   slots 5, 6: likewise c0 arm 0, c1 arm 1 (at 6: 1.6965 against 1.6958).
//   slot 7: c0's arm 0 has T = (4, 1), arm 1 has T = (1, 4):
//           arm 0: 0.75 + sqrt(2 ln 7 (9/16 / 4 + 1/16 / 1)) = 0.75 + 0.889 = 1.639
//           arm 1: 0.25 + sqrt(2 ln 7 (9/16 / 1 + 1/16 / 4)) = 0.25 + 1.500 = 1.750
//           c0 plays arm 1 (and c1 arm 0) where local-ucb plays arm 0 (1.986
//           above): arm 1's estimate holds client 1's reward 1 on it, and
//           client 0's own samples weigh 9/16 only.
//   slot 8: arm 2, T = (1, 1): 0 + sqrt(2 ln 8 * 10/16) = 1.612 against
//           arm 0: 0.75 + sqrt(2 ln 8 (9/16 / 4 + 1/16 / 2)) = 1.595: both arm 2.
//   slots 9, 10: c0 arm 0, c1 arm 1 (1.619 against 1.392 and 1.172 at 9).
// Arms per slot, c0 / c1: 0/0 1/1 2/2 0/1 0/1 0/1 1/0 2/2 0/1 0/1.
TEST_F(BaselinesNoiseless, CentralizedUcbHandTrajectory) {
  const Cell cell(spec("centralized-ucb"), 0);
  const auto r = run_replication(cell, 7, 0);
  EXPECT_EQ(r.series.regret, cumulative({0.5, 0.5, 1.5, 0, 0, 0, 1, 1.5, 0, 0}));
  EXPECT_EQ(r.series.local_reward, cumulative({1, 1, 0, 2, 2, 2, 0, 0, 2, 2}));
  EXPECT_EQ(r.fixed_arm, (std::vector<std::int32_t>{0, 1}));
}

TEST_F(BaselinesNoiseless, InitialRoundOnlyAndMostPulledArmTies) {
  // T = 2 < K: the initial round is cut; T = 3: every arm once, so every
  // client's most pulled arm is a three-way tie, reported as arm 0.
  for (const std::string_view algorithm : {"local-ucb", "centralized-ucb"}) {
    const auto cut = run_replication(Cell(spec(algorithm, 2), 0), 7, 0);
    EXPECT_EQ(cut.series.regret, (std::vector<double>{0.5, 1.0}));
    const auto r = run_replication(Cell(spec(algorithm, 3), 0), 7, 0);
    EXPECT_EQ(r.series.regret, (std::vector<double>{0.5, 1.0, 2.5}));
    EXPECT_EQ(r.fixed_arm, (std::vector<std::int32_t>{0, 0}));
    EXPECT_EQ(r.fixed_optimal, (std::vector<std::uint8_t>{1, 0}));  // arm 0: c0's best only
  }
}

// sigma = 0 Gaussian rewards: every reward is its mean and the bonus is 0, so
// after the initial round each algorithm plays the argmax of its estimates.
//   local  c0: [1, 0, 0.875]  c1: [0, 1, 0.875]  global [0.5, 0.5, 0.875]
//   mixed (alpha = 1/2): c0 [0.75, 0.25, 0.875]  c1 [0.25, 0.75, 0.875]
// local-ucb settles on each client's local best (gap 0.125 each), while
// centralized-ucb, holding both clients' samples, computes the mixed means
// and plays arm 2 from slot 4 on. Slots 1-3 cost (0.125 + 0.625) twice.
TEST(CentralizedUcb, PoolsEveryClientsSamplesWhereLocalUcbCannot) {
  auto s = spec_of(
      instance_of({{1, 0, 0.875}, {0, 1, 0.875}}, families::RewardFamily{"gaussian", {0.0}}),
      "local-ucb", 0.5, 100);
  s.checkpoints = {0, 100};
  const auto local = run_replication(Cell(s, 0), 3, 0);
  s.algorithm = algorithms::centralized_ucb();
  const auto central = run_replication(Cell(s, 0), 3, 0);
  for (std::size_t i = 0; i < 100; ++i) {
    const double t = static_cast<double>(i + 1);
    SCOPED_TRACE(t);
    const double initial = i == 0 ? 0.75 : 1.5;
    EXPECT_EQ(local.series.regret[i], initial + 0.25 * std::max(0.0, t - 3));
    EXPECT_EQ(central.series.regret[i], initial);
  }
  EXPECT_EQ(local.fixed_arm, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(local.fixed_optimal, (std::vector<std::uint8_t>{0, 0}));
  EXPECT_EQ(central.fixed_arm, (std::vector<std::int32_t>{2, 2}));
  EXPECT_EQ(central.fixed_optimal, (std::vector<std::uint8_t>{1, 1}));
}

// UCB1 written out plainly, one client at a time: its rewards drawn from its
// own stream as a single explore_per_pull pull draws them, the index
// mean + s sqrt(2 ln t / n). Returns the pull counts of client m at every
// checkpoint.
std::vector<std::vector<std::uint64_t>> reference_ucb1(const Cell& cell, std::uint64_t seed,
                                                       std::uint64_t replication, std::size_t m) {
  const auto& instance = cell.instance();
  const std::size_t arms = instance.arms();
  const auto means = instance.local_means(m);
  const bool gaussian = instance.rewards().name() == "gaussian";
  const double sigma = gaussian ? instance.rewards().value("sigma") : 0.0;
  const double scale = gaussian ? sigma : 1.0;
  auto stream = rng::make_stream({seed, cell.index(), replication, m});
  rng::UnitNormal normal;
  std::vector<std::uint64_t> n(arms, 0);
  std::vector<double> sum(arms, 0.0);
  std::vector<std::vector<std::uint64_t>> at_checkpoints;
  for (std::uint64_t t = 1; t <= cell.horizon(); ++t) {
    std::size_t arm = t - 1;
    if (t > arms) {
      double best = -std::numeric_limits<double>::infinity();
      for (std::size_t k = 0; k < arms; ++k) {
        const auto pulls = static_cast<double>(n[k]);
        const double index =
            sum[k] / pulls + scale * std::sqrt(2.0 * std::log(static_cast<double>(t)) / pulls);
        if (index > best) {
          best = index;
          arm = k;
        }
      }
    }
    sum[arm] += gaussian ? means[arm] + sigma * normal(stream)
                         : std::uint64_t{stream()} < rng::bernoulli_threshold(means[arm]);
    ++n[arm];
    if (std::binary_search(cell.checkpoints().begin(), cell.checkpoints().end(), t)) {
      at_checkpoints.push_back(n);
    }
  }
  return at_checkpoints;
}

TEST(LocalUcb, IsUcb1OnEachClientsOwnStream) {
  // Both families, sigma != 1 so that the bonus scale shows; the cell index
  // (2) and replication (5) are part of every stream key.
  const std::vector<std::vector<double>> means{{0.3, 0.7, 0.61, 0.2}, {0.55, 0.2, 0.5, 0.45}};
  for (const families::RewardFamily rewards :
       {families::RewardFamily{"gaussian", {0.4}}, families::RewardFamily{"bernoulli"}}) {
    SCOPED_TRACE(rewards.name());
    const Cell cell(spec_of(instance_of(means, rewards), "local-ucb", 1.0, 3000), 2);
    const auto r = run_replication(cell, 11, 5);
    const auto c0 = reference_ucb1(cell, 11, 5, 0), c1 = reference_ucb1(cell, 11, 5, 1);
    ASSERT_EQ(r.series.regret.size(), c0.size());
    for (std::size_t c = 0; c < c0.size(); ++c) {
      double regret = 0.0;
      for (std::size_t k = 0; k < means[0].size(); ++k) {
        regret += static_cast<double>(c0[c][k]) * cell.measured().gap(0, k);
      }
      for (std::size_t k = 0; k < means[0].size(); ++k) {
        regret += static_cast<double>(c1[c][k]) * cell.measured().gap(1, k);
      }
      EXPECT_DOUBLE_EQ(r.series.regret[c], regret) << "at slot " << cell.checkpoints()[c];
    }
    // the runs explored: some suboptimal pulls, not the initial round only
    EXPECT_GT(r.series.regret.back(), 10 * r.series.regret.front());
    const auto most = [](const std::vector<std::uint64_t>& n) {
      return static_cast<std::int32_t>(std::max_element(n.begin(), n.end()) - n.begin());
    };
    EXPECT_EQ(r.fixed_arm, (std::vector<std::int32_t>{most(c0.back()), most(c1.back())}));
  }
}

TEST(CentralizedUcb, AtAlphaOneMakesLocalUcbsDecisions) {
  // w_{m,n} = [n = m]: the mixed estimate is the client's own mean and the
  // width its own sqrt(2 ln t / T_{k,m}); same streams, so the same result.
  for (const families::RewardFamily rewards :
       {families::RewardFamily{}, families::RewardFamily{"bernoulli"}}) {
    auto s = spec_of(synthetic_instance(rewards), "local-ucb", 1.0, 20'000);
    const auto local = run_replication(Cell(s, 4), 9, 1);
    s.algorithm = algorithms::centralized_ucb();
    EXPECT_EQ(digest_of(run_replication(Cell(s, 4), 9, 1)), digest_of(local));
    s.algorithm_alpha = 0.9;  // the algorithm's alpha, not the measured one, sets w
    EXPECT_NE(digest_of(run_replication(Cell(s, 4), 9, 1)), digest_of(local));
  }
}

TEST(Baselines, ReportNoCommunicationEveryRewardAndTheMostPulledArm) {
  // On the synthetic game each client's local best is arm m (mean 1, the
  // next 0.9): UCB1 pulls it most. It is mixed-optimal at alpha = 1 and not
  // at alpha = 0.5 (mixed 0.625 against 0.69375 on arm 4 + m for client m < 3).
  for (const std::string_view algorithm : {"local-ucb", "centralized-ucb"}) {
    for (const double alpha : {0.5, 1.0}) {
      SCOPED_TRACE(std::string(algorithm) + " alpha " + std::to_string(alpha));
      auto s = spec_of(synthetic_instance(), algorithm, 1.0, 10'000);
      s.alpha = alpha;
      s.comm_cost = 100.0;  // would show in the regret if charged
      const Cell cell(s, 0);
      const auto r = run_replication(cell, 1, 0);
      ASSERT_EQ(r.series.comm_count.size(), cell.checkpoints().size());
      EXPECT_TRUE(std::all_of(r.series.comm_count.begin(), r.series.comm_count.end(),
                              [](auto c) { return c == 0; }));
      EXPECT_EQ(r.phases, 0u);
      EXPECT_EQ(r.exploration_pulls, 10'000u * 4);
      EXPECT_EQ(r.fixation_slot, -1);
      if (algorithm == "local-ucb" || alpha == 1.0) {
        EXPECT_EQ(r.fixed_arm, (std::vector<std::int32_t>{0, 1, 2, 3}));
      }
      ASSERT_EQ(r.fixed_optimal.size(), 4u);
      for (std::size_t m = 0; m < 4; ++m) {
        EXPECT_EQ(r.fixed_optimal[m], cell.measured().gap(m, r.fixed_arm[m]) == 0.0);
      }
      // the regret is the gaps alone: mixed reward = oracle's - regret
      double oracle = 0.0;
      for (std::size_t m = 0; m < 4; ++m) oracle += cell.measured().optimal_mixed_mean(m);
      EXPECT_NEAR(r.series.mixed_reward.back(), 10'000 * oracle - r.series.regret.back(), 1e-6);
      if (algorithm == "local-ucb") {
        EXPECT_EQ(r.identified(), alpha == 1.0);
      }
    }
  }
}

TEST(Baselines, SameKeySameResultOtherKeyOtherResult) {
  for (const std::string_view algorithm :
       {"local-ucb", "centralized-ucb", "local-kl-ucb", "centralized-kl-ucb", "local-thompson",
        "centralized-thompson"}) {
    SCOPED_TRACE(algorithm);
    const Cell cell(spec_of(synthetic_instance(), algorithm, 0.5, 5'000), 0);
    const auto first = digest_of(run_replication(cell, 5, 3));
    EXPECT_EQ(digest_of(run_replication(cell, 5, 3)), first);
    EXPECT_NE(digest_of(run_replication(cell, 5, 4)), first);
    EXPECT_NE(digest_of(run_replication(cell, 6, 3)), first);
    EXPECT_NE(digest_of(run_replication(Cell(cell.spec(), 1), 5, 3)), first);
  }
}

TEST(Baselines, DrawEveryRewardInEitherFidelity) {
  for (const std::string_view algorithm :
       {"local-ucb", "centralized-ucb", "local-kl-ucb", "centralized-kl-ucb"}) {
    auto s = spec_of(synthetic_instance(), algorithm, 0.5, 5'000);
    s.fidelity = Fidelity::per_pull;
    const auto per_pull = run_replication(Cell(s, 0), 2, 0);
    s.fidelity = Fidelity::aggregated;
    EXPECT_EQ(digest_of(run_replication(Cell(s, 0), 2, 0)), digest_of(per_pull));
  }
}

TEST(LocalUcb, SameResultOnAnyThreadCount) {
  // The synthetic game and 24 clients of random means: one task per client.
  const auto many = testing::random_means(24, 5, 3);
  for (const auto& instance : {synthetic_instance(), instance_of(many, {})}) {
    const Cell cell(spec_of(instance, "local-ucb", 0.5, 20'000), 0);
    testing::expect_one_digest_on_any_thread_count(cell);
  }
}

TEST(BaselineTrajectory, AccountCountsEqualsAdvancingSlotBySlot) {
  // Random plays on the synthetic game measured at alpha = 0.3 (mixed means
  // that are not dyadic, so the order of the sums shows in the bits).
  const auto instance = synthetic_instance();
  const model::MixedModel measured(*instance, 0.3);
  const auto grid = checkpoint_grid(5'000, 40, 20);
  std::mt19937_64 gen(17);
  std::uniform_int_distribution<std::uint32_t> pick(0, 8);
  Trajectory slot_by_slot(*instance, measured, grid, 1.0);
  std::vector<std::uint64_t> counts, pulls(4 * 9, 0);
  std::vector<std::uint32_t> arms(4);
  for (std::uint64_t t = 1; t <= 5'000; ++t) {
    for (std::size_t m = 0; m < 4; ++m) {
      arms[m] = pick(gen);
      ++pulls[m * 9 + arms[m]];
    }
    slot_by_slot.advance_slot(arms);
    if (std::binary_search(grid.begin(), grid.end(), t)) {
      counts.insert(counts.end(), pulls.begin(), pulls.end());
    }
  }
  Trajectory at_once(*instance, measured, grid, 1.0);
  at_once.account_counts(counts);
  EXPECT_TRUE(at_once.finished());
  testing::expect_same_result({at_once.take_series()}, {slot_by_slot.take_series()},
                              "every series");
}

}  // namespace
}  // namespace pfmab::sim
