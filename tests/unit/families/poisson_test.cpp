// Poisson rewards (families/poisson.hpp) and rng::Poisson: exact checks to
// the bit, moments on fixed seeds within 5 standard errors (checks.hpp), and
// the normal approximation above 2^18 against the exact CDF.
#include <cmath>
#include <cstdint>
#include <limits>

#include <boost/math/special_functions/gamma.hpp>
#include <gtest/gtest.h>

#include "pfmab/families/registry.hpp"
#include "pfmab/rng/streams.hpp"

#include "checks.hpp"

namespace pfmab::families {
namespace {

using PoissonRewards = Poisson::Sampler;
using testing::expect_moments;

TEST(PoissonRewards, DrawMoments) {
  // By inversion (mu < 10), by PTRD, and by the normal approximation.
  auto s = rng::make_stream({40, 0, 0, 0});
  for (const double mu : {0.3, 4.0, 25.0, 1e6}) {
    SCOPED_TRACE(mu);
    const PoissonRewards rewards(mu);
    expect_moments(
        20'000, mu, mu, [&] { return rewards.draw(s); }, 1.0 / mu);
  }
}

TEST(PoissonRewards, SumOfOneIsDrawToTheBit) {
  // Both draw Poisson(mu) by rng::Poisson from the same stream: the same
  // bits, the same stream left behind; likewise a tally of one reward.
  for (const double mu : {0.0, 0.7, 12.0, 3e5}) {
    const PoissonRewards rewards(mu);
    auto a = rng::make_stream({41, 0, 0, 0});
    for (int i = 0; i < 1000; ++i) {
      auto b = a, c = a;
      const double drawn = rewards.draw(a);
      EXPECT_EQ(rewards.sum_of(1, b), drawn);
      PoissonRewards::Tally tally(rewards);
      tally.add(c);
      EXPECT_EQ(tally.sum(1), drawn);
      EXPECT_TRUE(a == b);
      EXPECT_TRUE(a == c);
    }
  }
}

TEST(PoissonRewards, SumOfMomentsInEveryRegime) {
  // Poisson(n mu) below 10 (inversion), to 2^18 (PTRD), above (normal
  // quantile), at n = 1e12 and at 2^62 pulls of the largest mean.
  auto s = rng::make_stream({42, 0, 0, 0});
  for (const auto [n, mu] : {std::pair{10.0, 0.3}, {1000.0, 0.3}, {1e12, 0.3}, {0x1p62, 1e9}}) {
    SCOPED_TRACE(n * mu);
    const PoissonRewards rewards(mu);
    const double lambda = n * mu;
    expect_moments(
        20'000, lambda, lambda, [&] { return rewards.sum_of(static_cast<std::uint64_t>(n), s); },
        1.0 / lambda);
  }
}

TEST(PoissonRewards, TallyMoments) {
  const PoissonRewards rewards(0.8);
  auto s = rng::make_stream({43, 0, 0, 0});
  expect_moments(
      2000, 1000 * 0.8, 1000 * 0.8,
      [&] {
        PoissonRewards::Tally tally(rewards);
        for (int i = 0; i < 1000; ++i) tally.add(s);
        return tally.sum(1000);
      },
      1.0 / 800);
}

TEST(PoissonRewards, ZeroMeanGivesZero) {
  const PoissonRewards never(0.0);
  auto s = rng::make_stream({44, 0, 0, 0});
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(never.draw(s), 0.0);
  EXPECT_EQ(never.sum_of(1'000'000'000'000, s), 0.0);
  EXPECT_EQ(PoissonRewards(3.0).sum_of(0, s), 0.0);
}

TEST(PoissonRewards, RefusesANegativeOrTooLargeMean) {
  const double inf = std::numeric_limits<double>::infinity();
  for (const double mu : {-1e-12, 1.1e9, inf, std::numeric_limits<double>::quiet_NaN()}) {
    SCOPED_TRACE(mu);
    EXPECT_THROW(PoissonRewards{mu}, std::invalid_argument);
  }
}

TEST(PoissonRewards, StretchesAreNonnegativeOnes) {
  // As Bernoulli's (families/nonnegative.hpp): y = 10, theta = 1 leaves nine
  // safe pulls whatever the counts; one pull near the line.
  auto s = rng::make_stream({45, 0, 0, 0});
  const PoissonRewards rewards(2.0);
  const auto far = rewards.until_below_zero(s, 10.0, 1.0, 100);
  EXPECT_EQ(far.pulls, 9u);
  EXPECT_GE(far.sum, 0.0);
  EXPECT_EQ(rewards.until_below_zero(s, 1.5, 1.0, 100).pulls, 1u);
  EXPECT_EQ(rewards.until_below_zero(s, 0.5, 0.0, 100).pulls, 100u);
}

TEST(PoissonApproximation, CdfWithinItsStatedBound) {
  // P(count <= k) of rng::Poisson above 2^18 is Phi(z_k), z_k the largest z
  // whose count is <= k (found by bisection: the count increases with z),
  // against the regularized incomplete gamma Q(k + 1, lambda), for 2001
  // counts across lambda +- 8 sd: within 1.1e-2 lambda^-3/2 (the bound
  // rng::Poisson states), plus 1e-14 for the bisection and erfc.
  for (const double lambda : {0x1p18 * 1.5, 1e6, 1e8}) {
    SCOPED_TRACE(lambda);
    const double sd = std::sqrt(lambda);
    double worst = 0.0;
    for (int i = -1000; i <= 1000; ++i) {
      const double k = std::floor(lambda + 8.0 * sd * i / 1000.0);
      double low = -12.0, high = 12.0;
      for (int step = 0; step < 100; ++step) {
        const double z = 0.5 * (low + high);
        (rng::Poisson::approximate(lambda, z) <= k ? low : high) = z;
      }
      const double approximate = 0.5 * std::erfc(-low / std::sqrt(2.0));
      const auto exact = static_cast<double>(
          boost::math::gamma_q(static_cast<long double>(k) + 1, static_cast<long double>(lambda)));
      worst = std::max(worst, std::abs(approximate - exact));
    }
    EXPECT_LT(worst, 1.1e-2 * std::pow(lambda, -1.5) + 1e-14);
  }
}

TEST(PoissonKl, HandValuesAndDerivatives) {
  const Poisson::Kl kl;
  EXPECT_NEAR(kl(2.0, 1.0), 2.0 * std::log(2.0) - 1.0, 1e-15);  // 0.386...
  EXPECT_NEAR(kl(1.0, 3.0), 2.0 + std::log(1.0 / 3.0), 1e-15);  // 0.901...
  EXPECT_EQ(kl(0.0, 3.0), 3.0);
  EXPECT_EQ(kl(0.0, 0.0), 0.0);
  EXPECT_EQ(kl(1.0, 0.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(kl(1.5, 1.5), 0.0);
  for (const auto [mu, lambda] : {std::pair{2.0, 1.0}, {0.3, 0.9}, {0.0, 2.0}, {1e6, 1.2e6}}) {
    SCOPED_TRACE(lambda);
    testing::expect_derivatives(kl, mu, lambda);
  }
  EXPECT_TRUE(std::isnan(kl.quadratic_sigma()));
}

}  // namespace
}  // namespace pfmab::families
