// The paper's bounds against values worked out by hand (the arithmetic is in
// the comments; /usr/bin/python3 confirmed each sum) for a 2x2 and a 3x3
// instance.
#include "pfmab/theory/bounds.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/model/means_table.hpp"
#include "pfmab/theory/phase_rule.hpp"

namespace pfmab::theory {
namespace {

struct Game {
  model::Instance instance;
  model::MixedModel mixed;
  PhaseRule rule;
  std::uint64_t horizon;

  Game(std::vector<std::vector<double>> means, std::string_view family, double alpha,
       PhaseRuleSpec spec, std::uint64_t horizon)
      : instance(model::MeansTable{means, std::vector<std::string>(means.size(), "test")},
                 families::RewardFamily{family}),
        mixed(instance, alpha),
        rule(spec, alpha, means.size(), horizon),
        horizon(horizon) {}

  Bounds bounds(double comm_cost) const {
    Games games;
    return compute_bounds(instance, mixed, games, &rule, horizon, comm_cost);
  }
};

PhaseRuleSpec constant_schedule(double lambda) {
  PhaseRuleSpec p;
  p.schedule = {ScheduleKind::constant, lambda, 1.0};
  return p;
}

TEST(KlShifted, GaussianAndBernoulli) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  EXPECT_DOUBLE_EQ(kl_shifted(*families::RewardFamily{"gaussian", {2.0}}.divergence(), 0.3, 0.4),
                   0.16 / 8.0);
  EXPECT_EQ(kl_shifted(*families::RewardFamily{"gaussian", {0.0}}.divergence(), 0.3, 0.4), inf);
  // kl(0.5, 0.8) = 0.5 log(5/8) + 0.5 log(5/2) = 0.5 log(25/16)
  EXPECT_NEAR(kl_shifted(*families::RewardFamily{"bernoulli"}.divergence(), 0.5, 0.3),
              0.5 * std::log(25.0 / 16.0), 1e-15);
  // kl(0, 0.3) = log(1 / 0.7): the 0 log 0 term vanishes
  EXPECT_NEAR(kl_shifted(*families::RewardFamily{"bernoulli"}.divergence(), 0.0, 0.3),
              std::log(1.0 / 0.7), 1e-15);
  // no Bernoulli law has mean 1.1; Bernoulli(1) is not reachable from 0.5
  EXPECT_EQ(kl_shifted(*families::RewardFamily{"bernoulli"}.divergence(), 0.5, 0.6), inf);
  EXPECT_EQ(kl_shifted(*families::RewardFamily{"bernoulli"}.divergence(), 0.5, 0.5), inf);
}

// M = 2, K = 2, alpha = 0.5: global means (0.6, 0.55); mixed means
// mu' = 0.5 mu_{k,m} + 0.5 mu_k: client 0 (0.75, 0.525), optimal arm 0,
// Delta'_{1,0} = 0.225; client 1 (0.45, 0.575), optimal arm 1,
// Delta'_{0,1} = 0.125. beta = 0.5 + 0.5/2 = 0.75, gamma = 0.25. Each arm
// is suboptimal for one client only, so no Z term (n != m) exists.
const std::vector<std::vector<double>> kMeans2{{0.9, 0.5}, {0.3, 0.6}};

TEST(Bounds, TwoByTwoGaussianTheorem1AndCorollary1) {
  const Game game(kMeans2, "gaussian", 0.5, {}, 1000);
  const auto b = game.bounds(1.0);
  // 2 beta^2 / Delta': 2 * 0.5625 / 0.225 = 5 and 2 * 0.5625 / 0.125 = 9
  EXPECT_NEAR(b.theorem1_constant, 14.0, 1e-12);
  // Corollary 1's second terms, 2 gamma^2 Delta' / (Delta'_k)^2 = 0.125 / Delta',
  // are 0.56 and 1: below the first
  EXPECT_NEAR(b.corollary1_constant, 14.0, 1e-12);
  EXPECT_DOUBLE_EQ(b.log_horizon, std::log(1000.0));
  EXPECT_NEAR(b.theorem1_lower(), 14.0 * std::log(1000.0), 1e-9);
}

TEST(Bounds, TwoByTwoBernoulliTheorem1) {
  const Game game(kMeans2, "bernoulli", 0.5, {}, 1000);
  const auto b = game.bounds(1.0);
  // client 0, arm 1: shift 0.225 / 0.75 = 0.3 from 0.5, kl(0.5, 0.8) = 0.2231436;
  // client 1, arm 0: shift 0.125 / 0.75 = 1/6 from 0.3, kl(0.3, 0.4667) = 0.0578039
  const double first = 0.225 / (0.5 * std::log(25.0 / 16.0));
  const double kl2 =
      0.3 * std::log(0.3 / (0.3 + 1.0 / 6.0)) + 0.7 * std::log(0.7 / (0.7 - 1.0 / 6.0));
  EXPECT_NEAR(b.theorem1_constant, first + 0.125 / kl2, 1e-12);
  EXPECT_NEAR(b.theorem1_constant, 3.1708080432876, 1e-12);
  EXPECT_TRUE(std::isnan(b.corollary1_constant));  // Gaussian only
}

// Theorem 2 for the 2x2 with f(p) = 100, T = 1000 (log T = 6.907755), C = 1:
// n_l = ceil(0.5 * 2 * 100) = 100, n_g = ceil(0.5 * 100) = 50, M F(p) = 200 p.
// p'_{1,0}: 200 p >= 64 log T / 0.225^2 = 8732.8 -> 44; p'_{0,1}:
// 200 p >= 64 log T / 0.125^2 = 28294.2 -> 142; p'_max = 142.
//   local:   0.225 * 44 * 100 + 0.125 * 142 * 100 = 990 + 1775
//   global:  0.225 * 44 * 50 + 0.125 * 142 * 50 = 495 + 887.5
//   exploit: Delta' * K n_l sum_{j<p'} exp(-Delta'^2 * 200 j / 4), geometric:
//            0.225 * 200 * (1 - e^{-2.53125 * 44}) / (1 - e^{-2.53125}) = 48.8898
//            0.125 * 200 * (1 - e^{-0.78125 * 142}) / (1 - e^{-0.78125}) = 46.1113
//   comm:    2 C M p'_max = 568;  event G: 2 (1 + 2C) M^2 K = 48
TEST(Bounds, TwoByTwoTheorem2ConstantSchedule) {
  const Game game(kMeans2, "gaussian", 0.5, constant_schedule(100.0), 1000);
  const auto b = game.bounds(1.0);
  const double exploit =
      0.225 * 200.0 * (1.0 - std::exp(-2.53125 * 44)) / (1.0 - std::exp(-2.53125)) +
      0.125 * 200.0 * (1.0 - std::exp(-0.78125 * 142)) / (1.0 - std::exp(-0.78125));
  EXPECT_NEAR(b.theorem2_upper, 990 + 1775 + 495 + 887.5 + exploit + 568 + 48, 1e-9);
  EXPECT_NEAR(b.theorem2_upper, 4858.5009196839, 1e-8);
  EXPECT_TRUE(b.theorem2_note.empty());
}

// M = 3, K = 3, alpha = 0.2: global means (7/15, 8/15, 2/5); beta = 7/15,
// gamma = 4/15. Mixed means and gaps (Delta'):
//   client 0: (0.5533, 0.5267, 0.36)   optimal 0; gaps arm 1 0.02667, arm 2 0.19333
//   client 1: (0.3933, 0.5867, 0.38)   optimal 1; gaps arm 0 0.19333, arm 2 0.20667
//   client 2: (0.4533, 0.4867, 0.46)   optimal 1; gaps arm 0 0.03333, arm 2 0.02667
// Theorem 1 (Gaussian, sigma 1): max(2 beta^2 / Delta'_{k,m},
// 2 gamma^2 Delta'_{k,m} / min_{n != m, k suboptimal at n} Delta'_{k,n}^2):
//   (0, 1): max(16.3333, none)          = 16.3333  (arm 1 is optimal at 1 and 2)
//   (0, 2): max(2.2529, 0.14222 * 0.19333 / 0.02667^2 = 38.6667) = 38.6667
//   (1, 0): max(2.2529, 0.14222 * 0.19333 / 0.03333^2 = 24.7467) = 24.7467
//   (1, 2): max(2.1075, 0.14222 * 0.20667 / 0.02667^2 = 41.3333) = 41.3333
//   (2, 0): max(13.0667, 0.14222 * 0.03333 / 0.19333^2 = 0.1268) = 13.0667
//   (2, 2): max(16.3333, 0.14222 * 0.02667 / 0.19333^2 = 0.1015) = 16.3333
// sum 150.48; the Z terms (client m's information for another client)
// decide three of the six.
const std::vector<std::vector<double>> kMeans3{{0.9, 0.5, 0.2}, {0.1, 0.8, 0.3}, {0.4, 0.3, 0.7}};

TEST(Bounds, ThreeByThreeTheorem1WhereOtherClientsDecide) {
  const Game game(kMeans3, "gaussian", 0.2, {}, 10'000);
  const auto b = game.bounds(0.5);
  EXPECT_NEAR(b.theorem1_constant, 150.48, 1e-9);
  EXPECT_NEAR(b.corollary1_constant, 150.48, 1e-9);  // Delta'_k is the same minimum here
}

// Local-only (alpha = 1, gamma = 0): no global term; Theorem 1 is the sum of
// single-player Lai-Robbins constants 2 / Delta_{k,m} (beta = 1).
TEST(Bounds, LocalOnlyIsTheSumOfSinglePlayerConstants) {
  const Game game(kMeans3, "gaussian", 1.0, {}, 10'000);
  // gaps: client 0 (0.4, 0.7), client 1 (0.7, 0.5), client 2 (0.3, 0.4)
  const double expected = 2 / 0.4 + 2 / 0.7 + 2 / 0.7 + 2 / 0.5 + 2 / 0.3 + 2 / 0.4;
  EXPECT_NEAR(game.bounds(1.0).theorem1_constant, expected, 1e-9);
}

// Theorem 2 on the 3x3, f(p) = 2^p log T, T = 1e4, C = 0.5: p'_{k,m} is the
// first p with 3 (2^{p+1} - 2) log T >= 64 log T / Delta'^2, i.e.
// 2^{p+1} >= 64 / (3 Delta'^2) + 2: 14 for gaps 0.02667 and 0.03333, 9 for
// 0.19333, 8 for 0.20667; p'_k = 14 for every arm. The sums over the phases
// (n_l = ceil(0.6 * 2^p log T), n_g = ceil(0.8 * 2^p log T)) were added up
// by /usr/bin/python3 from Eqn. (10) as printed: 183219.199.
TEST(Bounds, ThreeByThreeTheorem2DoublingSchedule) {
  const Game game(kMeans3, "gaussian", 0.2, {}, 10'000);
  EXPECT_NEAR(game.bounds(0.5).theorem2_upper, 183219.19898319, 1e-6);
}

TEST(Bounds, Theorem2OnlyForItsConfidenceRadius) {
  PhaseRuleSpec spec;
  spec.confidence_constant = 2.0;
  const Game game(kMeans2, "gaussian", 0.5, spec, 1000);
  const auto b = game.bounds(1.0);
  EXPECT_TRUE(std::isnan(b.theorem2_upper));
  EXPECT_EQ(b.theorem2_note, "Theorem 2 is stated for c_B = 4 and L = log T");
  EXPECT_NEAR(b.theorem1_constant, 14.0, 1e-12);  // the lower bound holds for any algorithm
}

// Theorem 2 assumes sigma-sub-Gaussian rewards (Sec. 2): not a bound on
// Poisson ones, whose tail is heavier; Theorem 1 (a lower bound from the
// family's KL) still is.
TEST(Bounds, Theorem2OnlyForSubGaussianRewards) {
  const Game game(kMeans2, "poisson", 0.5, {}, 1000);
  const auto b = game.bounds(1.0);
  EXPECT_TRUE(std::isnan(b.theorem2_upper));
  EXPECT_EQ(b.theorem2_note, "Theorem 2 assumes sub-Gaussian rewards; Poisson rewards are not");
  EXPECT_GT(b.theorem1_constant, 0.0);
}

}  // namespace
}  // namespace pfmab::theory
