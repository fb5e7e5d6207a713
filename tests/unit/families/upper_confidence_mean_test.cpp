// families::upper_confidence_mean, kl-UCB's inverse of the divergence (the
// largest q with KL(mu, q) <= level), per family: the Gaussian closed form,
// the others against a bisection of the divergence itself, warm starts from
// either side, and the ends of the range.
#include <cmath>
#include <limits>
#include <memory>

#include <gtest/gtest.h>

#include "pfmab/families/divergence.hpp"
#include "pfmab/families/registry.hpp"

namespace pfmab::families {
namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// The reference: 2000 bisections of KL(mu, q) <= level on [mu, top], top a
// mean already beyond it (a bracket, not the range's end); exact to the
// spacing of doubles.
double bisected(const Divergence& kl, double mu, double level, double top) {
  double lo = mu, hi = top;
  for (int i = 0; i < 2000 && hi - lo > 0.0; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    (kl(mu, mid) <= level ? lo : hi) = mid;
  }
  return lo;
}

// The solver's promise: 1e-12 relative to the width q - mu (or to q). The
// tolerance asserted, 1e-10 of it, leaves room for the reference's rounding;
// plus the divergence's own: a log of a ratio near 1 is off by up to 2^-52
// absolute, which moves the root by that over the slope (Bernoulli
// mu = 1e-6 at level 1e-8: 8e-16, 5e-9 of the width).
void expect_same_index(const Divergence& kl, double got, double want, double mu) {
  const double rounding = 4.0 * 0x1p-52 / std::abs(kl.slope(mu, want));
  EXPECT_NEAR(got, want, 1e-10 * std::max(std::abs(want), want - mu) + rounding) << "mu " << mu;
}

TEST(UpperConfidenceMean, GaussianIsTheClosedForm) {
  // KL = (q - mu)^2 / (2 sigma^2): q = mu + sigma sqrt(2 level), the UCB1
  // index mu + sigma sqrt(2 log t / n) at level = log t / n.
  for (const double sigma : {1.0, 0.4, 30.0}) {
    const auto kl = RewardFamily("gaussian", {sigma}).divergence();
    for (const double mu : {-3.0, 0.0, 0.25, 1e6}) {
      for (const double level : {1e-6, 0.01, 1.0, 11.5}) {
        SCOPED_TRACE(::testing::Message() << "sigma " << sigma << " level " << level);
        const double want = mu + sigma * std::sqrt(2.0 * level);
        expect_same_index(*kl, upper_confidence_mean(*kl, mu, level), want, mu);
        // warm starts below and above the root
        expect_same_index(*kl, upper_confidence_mean(*kl, mu, level, mu + 0.5 * (want - mu)), want,
                          mu);
        expect_same_index(*kl, upper_confidence_mean(*kl, mu, level, want + 3.0 * sigma), want, mu);
      }
    }
  }
}

TEST(UpperConfidenceMean, BernoulliAgainstBisection) {
  const auto kl = RewardFamily("bernoulli").divergence();
  for (const double mu : {0.0, 1e-6, 0.1, 0.5, 0.8, 0.9, 0.999}) {
    for (const double level : {1e-8, 1e-4, 0.05, 1.0, 11.5, 40.0}) {
      SCOPED_TRACE(::testing::Message() << "level " << level);
      const double want = bisected(*kl, mu, level, 1.0);
      const double got = upper_confidence_mean(*kl, mu, level);
      expect_same_index(*kl, got, want, mu);
      EXPECT_LE(got, 1.0);
      // the previous slot's index (a slightly smaller level) as the start
      const double previous = upper_confidence_mean(*kl, mu, level * (1.0 - 1e-4));
      EXPECT_LE(previous, got);
      expect_same_index(*kl, upper_confidence_mean(*kl, mu, level, previous), want, mu);
    }
  }
}

TEST(UpperConfidenceMean, BernoulliClosedFormsAtTheEnds) {
  const auto kl = RewardFamily("bernoulli").divergence();
  // mu = 0: KL(0, q) = -log(1 - q), q = 1 - e^-level
  for (const double level : {0.01, 1.0, 11.5}) {
    expect_same_index(*kl, upper_confidence_mean(*kl, 0.0, level), -std::expm1(-level), 0.0);
  }
  // mu = 1: nothing lies above; the index is 1 at every level
  for (const double level : {0.0, 1e-3, 11.5})
    EXPECT_EQ(upper_confidence_mean(*kl, 1.0, level), 1.0);
}

TEST(UpperConfidenceMean, PoissonAgainstBisection) {
  const auto kl = RewardFamily("poisson").divergence();
  for (const double mu : {0.0, 0.01, 0.5, 3.0, 250.0, 1e6}) {
    for (const double level : {1e-6, 0.05, 1.0, 11.5, 40.0}) {
      SCOPED_TRACE(::testing::Message() << "level " << level);
      // KL(mu, q) >= (q - mu) - mu log(q / mu): q = mu + 2 level + 10 mu + 10 is beyond
      const double want = bisected(*kl, mu, level, 20.0 * mu + 4.0 * level + 10.0);
      expect_same_index(*kl, upper_confidence_mean(*kl, mu, level), want, mu);
      expect_same_index(*kl, upper_confidence_mean(*kl, mu, level, want * 1.5 + 1.0), want, mu);
    }
  }
  // mu = 0: KL(0, q) = q, so q = level
  EXPECT_NEAR(upper_confidence_mean(*kl, 0.0, 2.5), 2.5, 1e-12 * 2.5);
}

TEST(UpperConfidenceMean, ExponentialAgainstBisectionPastItsConvexRange) {
  // KL(mu, q) = mu / q - 1 - log(mu / q) rises for every q > mu (its slope
  // is (q - mu) / q^2) though it is concave past 2 mu: the index is still
  // the one root. At level 11.5 it lies near mu e^12.5, far past 2 mu.
  const auto kl = RewardFamily("exponential").divergence();
  EXPECT_FALSE(kl->convex());
  // convex up to lambda = 2 mu (its curvature (2 mu - lambda) / lambda^3), down always
  EXPECT_EQ(kl->convex_move(0.3, 1.0), 0.3);
  EXPECT_GT(kl->curvature(0.3, 0.6 - 1e-9), 0.0);
  EXPECT_LT(kl->curvature(0.3, 0.6 + 1e-9), 0.0);
  EXPECT_TRUE(std::isinf(kl->convex_move(0.3, -1.0)));
  // Poisson: convex everywhere, its move up from 0 (KL(0, q) = q) linear,
  // taken as a stretch of its own
  const auto poisson = RewardFamily("poisson").divergence();
  EXPECT_TRUE(std::isinf(poisson->convex_move(0.3, 1.0)));
  EXPECT_EQ(poisson->convex_move(0.0, 1.0), 0.0);
  EXPECT_TRUE(std::isinf(poisson->convex_move(0.3, -1.0)));
  for (const double mu : {1e-3, 0.5, 1.0, 50.0, 1e9}) {
    for (const double level : {1e-6, 0.05, 0.3, 1.0, 11.5, 40.0}) {
      SCOPED_TRACE(::testing::Message() << "level " << level);
      const double want = bisected(*kl, mu, level, mu * std::exp(level + 2.0));
      const double got = upper_confidence_mean(*kl, mu, level);
      expect_same_index(*kl, got, want, mu);
      if (level >= 1.0) EXPECT_GT(got, 2.0 * mu);  // the concave part was reached
      expect_same_index(*kl, upper_confidence_mean(*kl, mu, level, 1.01 * mu), want, mu);
    }
  }
}

TEST(UpperConfidenceMean, LevelZeroOrBelowIsTheMean) {
  for (const char* family : {"gaussian", "bernoulli", "poisson", "exponential"}) {
    SCOPED_TRACE(family);
    const auto kl = RewardFamily(family).divergence();
    for (const double level : {0.0, -1.0, kNone}) {
      EXPECT_EQ(upper_confidence_mean(*kl, 0.3, level), 0.3);
      EXPECT_EQ(upper_confidence_mean(*kl, 0.3, level, 0.6), 0.3);
    }
  }
}

TEST(UpperConfidenceMean, NoiselessGaussianStaysAtTheMean) {
  // sigma = 0: every q above mu is infinitely far; the index is mu, to the
  // solver's tolerance
  const auto kl = RewardFamily("gaussian", {0.0}).divergence();
  for (const double mu : {-1.0, 0.0, 0.7}) {
    EXPECT_NEAR(upper_confidence_mean(*kl, mu, 5.0), mu, 1e-9);
  }
}

}  // namespace
}  // namespace pfmab::families
