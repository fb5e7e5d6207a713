#pragma once

#include <cmath>
#include <limits>

#include "pfmab/families/divergence.hpp"

// The KL divergences of the four one-parameter families the tight bound is
// tested with, as families::Divergence: stand-ins until the engine's reward
// families implement the interface (then the tests read those). Each is
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

class GaussianKl final : public families::Divergence {
 public:
  explicit GaussianKl(double sigma) : variance_(sigma * sigma) {}
  double operator()(double mu, double lambda) const override {
    return (lambda - mu) * (lambda - mu) / (2.0 * variance_);
  }
  double slope(double mu, double lambda) const override { return (lambda - mu) / variance_; }
  double curvature(double, double) const override { return 1.0 / variance_; }
  double low_mean() const override { return -kInf; }
  double high_mean() const override { return kInf; }

 private:
  double variance_;
};

class BernoulliKl final : public families::Divergence {
 public:
  double operator()(double mu, double lambda) const override {
    return xlogx_over(mu, lambda) + xlogx_over(1.0 - mu, 1.0 - lambda);
  }
  double slope(double mu, double lambda) const override {
    return (lambda - mu) / (lambda * (1.0 - lambda));
  }
  double curvature(double mu, double lambda) const override {
    return mu / (lambda * lambda) + (1.0 - mu) / ((1.0 - lambda) * (1.0 - lambda));
  }
  double low_mean() const override { return 0.0; }
  double high_mean() const override { return 1.0; }
};

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
