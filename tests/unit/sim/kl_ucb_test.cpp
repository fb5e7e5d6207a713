// Unit tests of the KL-aware baselines (local-kl-ucb, centralized-kl-ucb):
// what they reduce to (Gaussian rewards: the UCB baselines; alpha = 1:
// local-kl-ucb), a hand trajectory with exact ties, what they refuse, and
// determinism over thread counts.
#include "pfmab/algorithms/kl_ucb.hpp"

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/replication.hpp"
#include "pfmab/util/digest.hpp"

#include "fixtures.hpp"

namespace pfmab::sim {
namespace {

using testing::digest_of;
using testing::instance_of;
using testing::spec_of;
using testing::synthetic_instance;

// Gaussian rewards: KL = (q - mu)^2 / (2 sigma^2), so kl-UCB's index is
// mu_hat + sigma sqrt(2 log t / n), local-ucb's, and the centralized
// region's largest mixed mean is centralized-ucb's index: the Lagrangian
// gives lambda_n - mu_n = nu sigma^2 w_n / T_n, and the tight constraint
// nu = sqrt(2 log t / (sigma^2 sum_n w_n^2 / T_n)). The indices agree to
// about 1e-12 of the width, so the decisions agree unless two arms come
// within that: the same digest, on these streams.
TEST(KlUcb, GaussianMakesTheUcbBaselinesDecisions) {
  for (const double sigma : {1.0, 0.4}) {
    const auto instance = synthetic_instance(families::RewardFamily{"gaussian", {sigma}});
    SCOPED_TRACE(sigma);
    const auto local = run_replication(Cell(spec_of(instance, "local-ucb", 0.5, 20'000), 3), 9, 2);
    EXPECT_EQ(
        digest_of(run_replication(Cell(spec_of(instance, "local-kl-ucb", 0.5, 20'000), 3), 9, 2)),
        digest_of(local));
    for (const double alpha : {0.0, 0.5, 0.9}) {
      SCOPED_TRACE(alpha);
      const auto ucb =
          run_replication(Cell(spec_of(instance, "centralized-ucb", alpha, 20'000), 3), 9, 2);
      const auto kl =
          run_replication(Cell(spec_of(instance, "centralized-kl-ucb", alpha, 20'000), 3), 9, 2);
      EXPECT_EQ(digest_of(kl), digest_of(ucb));
    }
  }
}

TEST(CentralizedKlUcb, AtAlphaOneMakesLocalKlUcbsDecisions) {
  // w_{m,n} = [n = m]: the region is client m's own, its largest mean the
  // client's own kl-UCB index; same streams, so the same result.
  for (const families::RewardFamily rewards :
       {families::RewardFamily{"bernoulli"}, families::RewardFamily{"poisson"}}) {
    SCOPED_TRACE(rewards.name());
    auto s = spec_of(synthetic_instance(rewards), "local-kl-ucb", 1.0, 5'000);
    const auto local = run_replication(Cell(s, 4), 9, 1);
    s.algorithm = algorithms::centralized_kl_ucb();
    EXPECT_EQ(digest_of(run_replication(Cell(s, 4), 9, 1)), digest_of(local));
    s.algorithm_alpha = 0.9;  // the algorithm's alpha, not the measured one, sets w
    EXPECT_NE(digest_of(run_replication(Cell(s, 4), 9, 1)), digest_of(local));
  }
}

// Bernoulli means 0 and 1 are noiseless. M = 2, K = 3, alpha = 1/2:
//   local  client 0: [0, 0, 0]   client 1: [1, 0, 0]   global [0.5, 0, 0]
//   mixed c0 [0.25, 0, 0] (gaps [0, 0.25, 0.25]); c1 [0.75, 0, 0] (gaps [0, 0.75, 0.75])
// local-kl-ucb: client 1's arm 0 has mean 1, index 1; its other arms have
// mean 0, index 1 - e^{-log t / n} < 1: arm 0 from slot 4 on. Client 0's
// arms all have mean 0: the index falls with n alone, so it plays round
// robin, each tie (equal statistics, equal index: slots 4, 7, 10) to the
// lowest arm. Per slot regret: 0 + 0, 0.25 + 0.75, 0.25 + 0.75, then
// 0, 0.25, 0.25 repeating.
TEST(LocalKlUcb, HandTrajectoryWithExactTies) {
  auto s = spec_of(instance_of({{0, 0, 0}, {1, 0, 0}}, families::RewardFamily{"bernoulli"}),
                   "local-kl-ucb", 0.5, 12);
  s.checkpoints = {0, 12};
  const Cell cell(s, 0);
  const auto r = run_replication(cell, 7, 0);
  std::vector<double> want;
  double total = 0.0;
  for (const double slot : {0.0, 1.0, 1.0, 0.0, 0.25, 0.25, 0.0, 0.25, 0.25, 0.0, 0.25, 0.25}) {
    want.push_back(total += slot);
  }
  EXPECT_EQ(r.series.regret, want);
  EXPECT_EQ(r.fixed_arm, (std::vector<std::int32_t>{0, 0}));  // 4 pulls each at c0: a tie
}

TEST(KlUcb, RefusesFamiliesWithoutTheirDivergenceOrConvexity) {
  const auto local = algorithms::local_kl_ucb()({*synthetic_instance(), 0.5, 10});
  const auto central = algorithms::centralized_kl_ucb()({*synthetic_instance(), 0.5, 10});
  for (const char* family : {"gaussian", "bernoulli", "poisson", "exponential"}) {
    EXPECT_EQ(local->refuses(families::RewardFamily{family}), "") << family;
  }
  EXPECT_EQ(central->refuses(families::RewardFamily{"poisson"}), "");
  EXPECT_NE(central->refuses(families::RewardFamily{"exponential"}).find("not past 2 mu"),
            std::string::npos);
  for (const auto& algorithm : {local, central}) {
    const auto why = algorithm->refuses(families::RewardFamily{"student-t"});
    EXPECT_NE(why.find("student-t rewards have none"), std::string::npos) << why;
  }
}

TEST(KlUcb, SameResultOnAnyThreadCount) {
  // local-kl-ucb runs one task per client (24 clients of random Bernoulli
  // means); centralized-kl-ucb one task. The indices' warm starts are each
  // client's own.
  const auto many = testing::random_means(24, 5, 3);
  const auto instance = instance_of(many, families::RewardFamily{"bernoulli"});
  for (const std::string_view algorithm : {"local-kl-ucb", "centralized-kl-ucb"}) {
    SCOPED_TRACE(algorithm);
    const Cell cell(spec_of(instance, algorithm, 0.5, 500), 0);
    testing::expect_one_digest_on_any_thread_count(cell);
  }
}

}  // namespace
}  // namespace pfmab::sim
