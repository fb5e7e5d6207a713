#pragma once

#include <cmath>

#include <gtest/gtest.h>

#include "pfmab/families/divergence.hpp"

namespace pfmab::testing {

// Mean and variance of draws standardised by the law's own mean and
// variance: near 0 and 1, within 5 standard errors: 1 / sqrt(draws) for the
// mean, sqrt((2 + kurtosis) / draws) for the variance, `kurtosis` the law's
// excess kurtosis (0 for a normal law; 1 / lambda for Poisson(lambda),
// 6 / n for Gamma(n)).
template <class Draw>
void expect_moments(int draws, double mean, double variance, Draw&& draw, double kurtosis = 0.0) {
  double sum = 0.0, squares = 0.0;
  for (int i = 0; i < draws; ++i) {
    const double z = (draw() - mean) / std::sqrt(variance);
    sum += z;
    squares += z * z;
  }
  EXPECT_NEAR(sum / draws, 0.0, 5.0 / std::sqrt(draws));
  EXPECT_NEAR(squares / draws, 1.0, 5.0 * std::sqrt((2.0 + kurtosis) / draws));
}

// The divergence's slope and curvature in lambda against central finite
// differences of it and of the slope, step h = 1e-5 lambda: their error is
// O(h^2) relative, far below the 1e-6 relative tolerance.
inline void expect_derivatives(const families::Divergence& kl, double mu, double lambda) {
  const double h = 1e-5 * lambda;
  const double slope = (kl(mu, lambda + h) - kl(mu, lambda - h)) / (2.0 * h);
  const double curvature = (kl.slope(mu, lambda + h) - kl.slope(mu, lambda - h)) / (2.0 * h);
  EXPECT_NEAR(kl.slope(mu, lambda), slope, 1e-6 * (std::abs(slope) + 1e-3));
  EXPECT_NEAR(kl.curvature(mu, lambda), curvature, 1e-6 * (std::abs(curvature) + 1e-3));
}

}  // namespace pfmab::testing
