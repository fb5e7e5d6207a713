// The families' posteriors of Thompson sampling (each family's Posterior,
// families::with_posterior) and the draws under them (rng::gamma below
// shape 1, rng::beta): mean and variance of 1e5 draws on fixed seeds against
// the closed forms, within 5 standard errors (checks.hpp: a false alarm at
// a normal 6e-7 per check).
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include "pfmab/families/registry.hpp"
#include "pfmab/rng/samplers.hpp"
#include "pfmab/rng/streams.hpp"

#include "checks.hpp"

namespace pfmab::families {
namespace {

using testing::expect_moments;

constexpr int kDraws = 100'000;

// Beta(a, b)'s excess kurtosis
double beta_kurtosis(double a, double b) {
  return 6.0 * ((a - b) * (a - b) * (a + b + 1.0) - a * b * (a + b + 2.0)) /
         (a * b * (a + b + 2.0) * (a + b + 3.0));
}

TEST(PosteriorDraws, GammaBelowShapeOne) {
  // Gamma(k): mean k, variance k, excess kurtosis 6 / k (Marsaglia and
  // Tsang's reduction Gamma(k + 1) U^(1/k))
  auto s = rng::make_stream({60, 0, 0, 0});
  for (const double k : {0.5, 0.1, 0.99}) {
    SCOPED_TRACE(k);
    expect_moments(
        kDraws, k, k, [&] { return rng::gamma(s, k); }, 6.0 / k);
  }
}

TEST(PosteriorDraws, Beta) {
  auto s = rng::make_stream({61, 0, 0, 0});
  for (const auto& [a, b] : {std::pair{1.0, 1.0}, {1.0, 2.0}, {6.0, 16.0}, {2000.0, 30.0}}) {
    SCOPED_TRACE(std::to_string(a) + ", " + std::to_string(b));
    const double mean = a / (a + b), variance = a * b / ((a + b) * (a + b) * (a + b + 1.0));
    expect_moments(
        kDraws, mean, variance, [&] { return rng::beta(s, a, b); }, beta_kurtosis(a, b));
  }
}

TEST(Posterior, GaussianIsNormalAroundTheSampleMean) {
  // flat prior: N(S / n, sigma^2 / n)
  auto s = rng::make_stream({62, 0, 0, 0});
  const RewardFamily rewards("gaussian", {2.0});
  const Gaussian::Posterior posterior(rewards);
  for (const auto& [n, sum] : {std::pair{std::uint64_t{1}, -0.7}, {10, 3.0}, {100'000, 41'000.0}}) {
    SCOPED_TRACE(n);
    const auto x = static_cast<double>(n);
    expect_moments(kDraws, sum / x, 4.0 / x, [&] { return posterior.draw(n, sum, s); });
  }
}

TEST(Posterior, BernoulliIsBetaFromTheUniformPrior) {
  // Beta(1 + S, 1 + n - S)
  auto s = rng::make_stream({63, 0, 0, 0});
  const Bernoulli::Posterior posterior(RewardFamily{"bernoulli"});
  for (const auto& [n, sum] :
       {std::pair{std::uint64_t{1}, 0.0}, {1, 1.0}, {20, 5.0}, {50'000, 49'990.0}}) {
    SCOPED_TRACE(n);
    const double a = 1.0 + sum, b = 1.0 + static_cast<double>(n) - sum;
    expect_moments(
        kDraws, a / (a + b), a * b / ((a + b) * (a + b) * (a + b + 1.0)),
        [&] { return posterior.draw(n, sum, s); }, beta_kurtosis(a, b));
  }
}

TEST(Posterior, PoissonIsGammaFromJeffreysPrior) {
  // Gamma(S + 1/2, rate n): mean (S + 1/2) / n, variance (S + 1/2) / n^2,
  // excess kurtosis 6 / (S + 1/2); S = 0 takes the shape-1/2 reduction.
  auto s = rng::make_stream({64, 0, 0, 0});
  const Poisson::Posterior posterior(RewardFamily{"poisson"});
  for (const auto& [n, sum] : {std::pair{std::uint64_t{4}, 0.0}, {1, 3.0}, {1000, 2512.0}}) {
    SCOPED_TRACE(n);
    const double shape = sum + 0.5, x = static_cast<double>(n);
    expect_moments(
        kDraws, shape / x, shape / (x * x), [&] { return posterior.draw(n, sum, s); }, 6.0 / shape);
  }
}

TEST(Posterior, ExponentialMeanIsInverseGammaFromJeffreysPrior) {
  // S / Gamma(n), an inverse gamma: mean S / (n - 1), variance
  // S^2 / ((n - 1)^2 (n - 2)), excess kurtosis 6 (5n - 11) / ((n - 3)(n - 4))
  // (finite from n = 5: the variance's standard error needs it).
  auto s = rng::make_stream({65, 0, 0, 0});
  const Exponential::Posterior posterior(RewardFamily{"exponential"});
  for (const auto& [n, sum] : {std::pair{std::uint64_t{6}, 3.0}, {20, 50.0}, {10'000, 2'500.0}}) {
    SCOPED_TRACE(n);
    const double x = static_cast<double>(n);
    expect_moments(
        kDraws, sum / (x - 1.0), sum * sum / ((x - 1.0) * (x - 1.0) * (x - 2.0)),
        [&] { return posterior.draw(n, sum, s); },
        6.0 * (5.0 * x - 11.0) / ((x - 3.0) * (x - 4.0)));
  }
}

TEST(Posterior, EveryFamilyButStudentTHasOneAndDispatchReachesIt) {
  for (const auto* family : all_families()) {
    SCOPED_TRACE(std::string(family->name()));
    const bool student = family->name() == "student-t";
    EXPECT_EQ(family->has_posterior(), !student);
    EXPECT_EQ(family->no_posterior().empty(), !student);
  }
  EXPECT_NE(RewardFamily{"student-t"}.family().no_posterior().find("pf-ucb"), std::string::npos);
  // with_posterior hands over the family's own Posterior type
  bool reached = false;
  with_posterior(RewardFamily{"poisson"}, [&]<class P>(std::type_identity<P>) {
    reached = std::is_same_v<P, Poisson::Posterior>;
  });
  EXPECT_TRUE(reached);
  EXPECT_THROW(with_posterior(RewardFamily{"student-t"}, [](auto) {}), std::logic_error);
}

}  // namespace
}  // namespace pfmab::families
