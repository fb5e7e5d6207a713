// Exponential rewards (families/exponential.hpp) and rng::gamma: moments on
// fixed seeds within 5 standard errors (checks.hpp), up to shape 2^62.
#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "pfmab/families/registry.hpp"
#include "pfmab/rng/streams.hpp"

#include "checks.hpp"

namespace pfmab::families {
namespace {

using ExponentialRewards = Exponential::Sampler;
using testing::expect_moments;

TEST(ExponentialRewards, DrawMoments) {
  // mean mu, variance mu^2, excess kurtosis 6
  auto s = rng::make_stream({50, 0, 0, 0});
  for (const double mu : {0.25, 3.0, 1e9}) {
    SCOPED_TRACE(mu);
    const ExponentialRewards rewards(mu);
    expect_moments(
        20'000, mu, mu * mu, [&] { return rewards.draw(s); }, 6.0);
  }
}

TEST(ExponentialRewards, SumOfOneAgreesWithDrawInLaw) {
  // sum_of(1) draws a Gamma(1) by Marsaglia-Tsang, draw() an Exp(1) by the
  // ziggurat: the same law, not the same bits. Their moments, and the share
  // above the mean (e^-1, standard error sqrt(e^-1 (1 - e^-1) / 1e5) =
  // 1.5e-3), from 1e5 of each.
  const ExponentialRewards rewards(2.0);
  auto s = rng::make_stream({51, 0, 0, 0});
  constexpr int draws = 100'000;
  expect_moments(
      draws, 2.0, 4.0, [&] { return rewards.draw(s); }, 6.0);
  expect_moments(
      draws, 2.0, 4.0, [&] { return rewards.sum_of(1, s); }, 6.0);
  int drawn = 0, summed = 0;
  for (int i = 0; i < draws; ++i) {
    drawn += rewards.draw(s) > 2.0;
    summed += rewards.sum_of(1, s) > 2.0;
  }
  const double p = std::exp(-1.0), tolerance = 5.0 * std::sqrt(p * (1.0 - p) / draws);
  EXPECT_NEAR(static_cast<double>(drawn) / draws, p, tolerance);
  EXPECT_NEAR(static_cast<double>(summed) / draws, p, tolerance);
}

TEST(ExponentialRewards, SumOfMomentsUpToTwoToThe62) {
  // Gamma(n, mu): n mu, n mu^2, excess kurtosis 6 / n; at shape 2^62 the
  // log-density test of a naive sampler would be off by 2^9.
  auto s = rng::make_stream({52, 0, 0, 0});
  for (const double n : {2.0, 10.0, 1e6, 1e12, 0x1p62}) {
    SCOPED_TRACE(n);
    const ExponentialRewards rewards(0.5);
    expect_moments(
        20'000, n * 0.5, n * 0.25, [&] { return rewards.sum_of(static_cast<std::uint64_t>(n), s); },
        6.0 / n);
  }
  EXPECT_EQ(ExponentialRewards(0.5).sum_of(0, s), 0.0);
}

TEST(ExponentialRewards, TallyMoments) {
  const ExponentialRewards rewards(1.5);
  auto s = rng::make_stream({53, 0, 0, 0});
  expect_moments(
      2000, 1000 * 1.5, 1000 * 2.25,
      [&] {
        ExponentialRewards::Tally tally(rewards);
        for (int i = 0; i < 1000; ++i) tally.add(s);
        return tally.sum(1000);
      },
      6.0 / 1000);
}

TEST(ExponentialRewards, StretchesAreNonnegativeOnes) {
  auto s = rng::make_stream({54, 0, 0, 0});
  const ExponentialRewards rewards(1.0);
  const auto far = rewards.until_below_zero(s, 10.0, 1.0, 100);
  EXPECT_EQ(far.pulls, 9u);
  EXPECT_GT(far.sum, 0.0);
  EXPECT_EQ(rewards.until_below_zero(s, 1.5, 1.0, 100).pulls, 1u);
}

TEST(Log1pMinus, MatchesLongDoubleOnBothSidesOfItsSwitch) {
  // log(1 + w) - w against a long double reference (64-bit mantissa): its
  // Taylor series -w^2/2 + w^3/3 - ... for |w| < 0.1 (60 terms: the rest is
  // below 0.1^58 of the first), else log1p(w) - w, whose cancellation then
  // costs at most 20 times 2^-64. Within 2^-45 relative, what the direct
  // difference keeps just beyond the switch at 2^-6.
  for (const double w : {-0.5, -0.1, -0x1p-6, -1e-3, -1e-5, -1e-7, 1e-7, 1e-5, 1e-3, 0x1p-6,
                         0.015625001, 0.1, 1.0, 10.0}) {
    SCOPED_TRACE(w);
    const long double x = w;
    long double reference = std::log1p(x) - x;
    if (std::abs(w) < 0.1) {
      reference = 0.0L;
      long double power = x;
      for (int k = 2; k < 62; ++k) {
        power *= -x;
        reference += power / k;
      }
    }
    const auto expected = static_cast<double>(reference);
    EXPECT_NEAR(rng::log1p_minus(w), expected, 0x1p-45 * std::abs(expected));
  }
  EXPECT_EQ(rng::log1p_minus(0.0), 0.0);
}

TEST(ExponentialKl, HandValuesAndDerivatives) {
  const Exponential::Kl kl;
  EXPECT_NEAR(kl(2.0, 1.0), 1.0 - std::log(2.0), 1e-15);  // 0.307...
  EXPECT_NEAR(kl(1.0, 2.0), std::log(2.0) - 0.5, 1e-15);  // 0.193...
  EXPECT_EQ(kl(1.5, 1.5), 0.0);
  EXPECT_EQ(kl(1.0, 0.0), std::numeric_limits<double>::infinity());
  for (const auto [mu, lambda] : {std::pair{2.0, 1.0}, {0.3, 0.9}, {5.0, 0.5}, {1e6, 1.2e6}}) {
    SCOPED_TRACE(lambda);
    testing::expect_derivatives(kl, mu, lambda);
  }
}

}  // namespace
}  // namespace pfmab::families
