// The reward samplers: what is exact is checked to the bit, what is in law
// by moments on fixed seeds. Every statistical check allows 5 standard errors
// of its estimate, so it is deterministic and far from chance for a correct
// sampler, yet catches a wrong mean or scale.
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include <gtest/gtest.h>

#include "pfmab/families/registry.hpp"
#include "pfmab/rng/first_passage.hpp"
#include "pfmab/rng/streams.hpp"

#include "checks.hpp"

namespace pfmab::rng {
namespace {

// The samplers under test, by their families.
using GaussianRewards = families::Gaussian::Sampler;
using BernoulliRewards = families::Bernoulli::Sampler;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

using testing::expect_moments;

TEST(GaussianRewards, SumOfOneIsDrawToTheBit) {
  // sum_of(1) is 1 * mu + sigma * sqrt(1) * Z: the same Z, the same bits, the
  // same stream left behind; likewise a tally of one reward.
  for (const auto [mu, sigma] : {std::pair{0.3, 1.0}, {-2.5, 0.7}, {1e9, 3.0}}) {
    const GaussianRewards rewards(mu, sigma);
    auto a = make_stream({1, 0, 0, 0});
    for (int i = 0; i < 1000; ++i) {
      auto b = a, c = a;
      const double drawn = rewards.draw(a);
      EXPECT_EQ(rewards.sum_of(1, b), drawn);
      GaussianRewards::Tally tally(rewards);
      tally.add(c);
      EXPECT_EQ(tally.sum(1), drawn);
      EXPECT_TRUE(a == b);
      EXPECT_TRUE(a == c);
    }
  }
}

TEST(GaussianRewards, SumOfMomentsAtLargeN) {
  // N(n mu, n sigma^2) at n = 1e12, and at n = 1e18 beyond every horizon.
  const GaussianRewards rewards(0.3, 2.0);
  auto s = make_stream({2, 0, 0, 0});
  for (const double n : {1e12, 1e18}) {
    SCOPED_TRACE(n);
    expect_moments(2000, n * 0.3, n * 4.0,
                   [&] { return rewards.sum_of(static_cast<std::uint64_t>(n), s); });
  }
}

TEST(GaussianRewards, TallyMoments) {
  // 1000 rewards added one by one: N(1000 mu, 1000 sigma^2).
  const GaussianRewards rewards(-0.4, 1.5);
  auto s = make_stream({3, 0, 0, 0});
  expect_moments(2000, 1000 * -0.4, 1000 * 2.25, [&] {
    GaussianRewards::Tally tally(rewards);
    for (int i = 0; i < 1000; ++i) tally.add(s);
    return tally.sum(1000);
  });
}

TEST(GaussianRewards, NoNoiseIsTheMean) {
  const GaussianRewards rewards(0.25, 0.0);
  auto s = make_stream({4, 0, 0, 0});
  EXPECT_EQ(rewards.draw(s), 0.25);
  EXPECT_EQ(rewards.sum_of(1'000'000, s), 250'000.0);
}

TEST(GaussianRewards, StretchWithoutNoiseEndsWhereTheLineCrosses) {
  // mu = 0.5, theta = 1.5: Y_n = 5 - n is 0 at n = 5, below 0 at n = 6; the
  // six rewards sum to 3.
  const GaussianRewards crossing(0.5, 0.0);
  auto s = make_stream({5, 0, 0, 0});
  const auto a = crossing.until_below_zero(s, 5.0, 1.5, 100);
  EXPECT_EQ(a.pulls, 6u);
  EXPECT_EQ(a.sum, 3.0);
  // mu = 2 above theta: the walk rises, so every slot is played.
  const GaussianRewards rising(2.0, 0.0);
  const auto b = rising.until_below_zero(s, 5.0, 1.5, 10);
  EXPECT_EQ(b.pulls, 10u);
  EXPECT_EQ(b.sum, 20.0);
}

TEST(BernoulliRewards, SumOfOneAgreesWithDrawInLaw) {
  // Both are 0 or 1 with P(1) = mu; sum_of(1) draws a Binomial(1, mu) from
  // 64 bits, draw() compares 32, so they agree in law, not in bits. 1e6 of
  // each: the frequency's standard error is sqrt(mu (1 - mu) / 1e6) = 4.6e-4.
  const double mu = 0.3;
  const BernoulliRewards rewards(mu);
  auto s = make_stream({6, 0, 0, 0});
  constexpr int draws = 1'000'000;
  double drawn = 0.0, summed = 0.0;
  for (int i = 0; i < draws; ++i) {
    const double x = rewards.draw(s), y = rewards.sum_of(1, s);
    ASSERT_TRUE(x == 0.0 || x == 1.0);
    ASSERT_TRUE(y == 0.0 || y == 1.0);
    drawn += x;
    summed += y;
  }
  const double tolerance = 5.0 * std::sqrt(mu * (1.0 - mu) / draws);
  EXPECT_NEAR(drawn / draws, mu, tolerance);
  EXPECT_NEAR(summed / draws, mu, tolerance);
}

TEST(BernoulliRewards, TallyOfOneIsDrawToTheBit) {
  const BernoulliRewards rewards(0.6);
  auto a = make_stream({7, 0, 0, 0});
  for (int i = 0; i < 1000; ++i) {
    auto b = a;
    BernoulliRewards::Tally tally(rewards);
    tally.add(b);
    EXPECT_EQ(tally.sum(1), rewards.draw(a));
    EXPECT_TRUE(a == b);
  }
}

TEST(BernoulliRewards, SumOfMomentsAtLargeN) {
  // Binomial(n, mu): n mu and n mu (1 - mu), by BTRD at n = 1e12 and near
  // mu = 1 at n = 1e6, by inversion at n = 20, mu = 0.1 (mean 2).
  auto s = make_stream({8, 0, 0, 0});
  for (const auto [n, mu] : {std::pair{1e12, 0.3}, {1e6, 0.999}, {20.0, 0.1}}) {
    SCOPED_TRACE(n);
    const BernoulliRewards rewards(mu);
    expect_moments(2000, n * mu, n * mu * (1.0 - mu),
                   [&] { return rewards.sum_of(static_cast<std::uint64_t>(n), s); });
  }
}

TEST(BernoulliRewards, TallyMoments) {
  const BernoulliRewards rewards(0.45);
  auto s = make_stream({9, 0, 0, 0});
  expect_moments(2000, 1000 * 0.45, 1000 * 0.45 * 0.55, [&] {
    BernoulliRewards::Tally tally(rewards);
    for (int i = 0; i < 1000; ++i) tally.add(s);
    return tally.sum(1000);
  });
}

TEST(BernoulliRewards, EndsAreExact) {
  const BernoulliRewards never(0.0), always(1.0);
  auto s = make_stream({10, 0, 0, 0});
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(never.draw(s), 0.0);
    EXPECT_EQ(always.draw(s), 1.0);
  }
  EXPECT_EQ(never.sum_of(1'000'000'000'000, s), 0.0);
  EXPECT_EQ(always.sum_of(1'000'000'000'000, s), 1e12);
  EXPECT_EQ(always.sum_of(0, s), 0.0);
}

TEST(BernoulliRewards, RefusesAMeanOutsideZeroOne) {
  for (const double mu : {-1e-12, 1.0 + 1e-12, -kInf, kInf, kNaN}) {
    SCOPED_TRACE(mu);
    EXPECT_THROW(BernoulliRewards{mu}, std::invalid_argument);
  }
  EXPECT_NO_THROW(BernoulliRewards{0.0});
  EXPECT_NO_THROW(BernoulliRewards{1.0});
}

TEST(BernoulliRewards, StretchStopsShortOfAnyCrossing) {
  auto s = make_stream({11, 0, 0, 0});
  // y = 10, theta = 1: nine failures leave Y = 1, so nine pulls are safe.
  const BernoulliRewards rewards(0.5);
  const auto far = rewards.until_below_zero(s, 10.0, 1.0, 100);
  EXPECT_EQ(far.pulls, 9u);
  EXPECT_GE(far.sum, 0.0);
  EXPECT_LE(far.sum, 9.0);
  // ... never more than the slots left ...
  EXPECT_EQ(rewards.until_below_zero(s, 10.0, 1.0, 4).pulls, 4u);
  // ... one pull at a time near the line ...
  EXPECT_EQ(rewards.until_below_zero(s, 1.5, 1.0, 100).pulls, 1u);
  // ... and every slot at once when no failure lowers Y.
  EXPECT_EQ(rewards.until_below_zero(s, 0.5, 0.0, 100).pulls, 100u);
  EXPECT_EQ(BernoulliRewards(0.0).until_below_zero(s, 0.5, -1.0, 100).sum, 0.0);
}

TEST(WithSampler, DispatchesOnTheFamily) {
  const auto is_gaussian = []<class Rewards>(std::type_identity<Rewards>) {
    return std::is_same_v<Rewards, GaussianRewards>;
  };
  EXPECT_TRUE(families::with_sampler(families::RewardFamily{"gaussian", {1.0}}, is_gaussian));
  EXPECT_FALSE(families::with_sampler(families::RewardFamily{"bernoulli"}, is_gaussian));
}

}  // namespace
}  // namespace pfmab::rng
