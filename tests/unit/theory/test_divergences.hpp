#pragma once

#include <cmath>
#include <limits>

#include "pfmab/families/bernoulli.hpp"
#include "pfmab/families/divergence.hpp"
#include "pfmab/families/gaussian.hpp"

// The KL divergences of the four one-parameter families the tight bound is
// tested with, as families::Divergence: the Gaussian and Bernoulli families'
// own, and stand-ins for Poisson and exponential until the engine has those
// families (then the tests read theirs). Each is
// +inf where P_lambda cannot produce what P_mu does, and its slope and
// curvature are those of the closed form, (lambda - mu) / V(lambda) and its
// derivative.
namespace pfmab::test {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// a log(a / b), with 0 log 0 = 0 and a log(a / 0) = +inf for a > 0
inline double xlogx_over(double a, double b) {
  if (a == 0.0) return 0.0;
  return b == 0.0 ? kInf : a * std::log(a / b);
}

// The engine's families' own divergences, under the names the tests use.
using GaussianKl = families::Gaussian::Kl;
using BernoulliKl = families::Bernoulli::Kl;

class PoissonKl final : public families::Divergence {
 public:
  double operator()(double mu, double lambda) const override {
    return lambda - mu + xlogx_over(mu, lambda);
  }
  double slope(double mu, double lambda) const override { return (lambda - mu) / lambda; }
  double curvature(double mu, double lambda) const override { return mu / (lambda * lambda); }
  double low_mean() const override { return 0.0; }
  double high_mean() const override { return kInf; }
};

// Means in (0, inf); the law of mean 0 (a point mass at 0) is +inf from
// every other.
class ExponentialKl final : public families::Divergence {
 public:
  double operator()(double mu, double lambda) const override {
    if (mu == lambda) return 0.0;
    if (mu == 0.0 || lambda == 0.0) return kInf;
    const double r = mu / lambda;
    return r - 1.0 - std::log(r);
  }
  double slope(double mu, double lambda) const override {
    return (lambda - mu) / (lambda * lambda);
  }
  double curvature(double mu, double lambda) const override {
    return (2.0 * mu - lambda) / (lambda * lambda * lambda);
  }
  double low_mean() const override { return 0.0; }
  double high_mean() const override { return kInf; }
};

}  // namespace pfmab::test
