#pragma once

#include <limits>

namespace pfmab::families {

// The Kullback-Leibler divergence of a one-parameter reward family between
// its laws of means mu and lambda, KL(P_mu || P_lambda): the information one
// pull of an arm of mean mu gives against the alternative lambda. The tight
// bound C* (docs/allocation.md) and the index policies (kl-UCB) read a
// family through it; a family without a usable KL (Student-t) has none.
//
// For the natural exponential families (Gaussian with known sigma,
// Bernoulli, Poisson, exponential) the slope in lambda is
// (lambda - mu) / V(lambda), V the variance at mean lambda, so that the
// divergence is convex in lambda, 0 at lambda = mu and increasing away
// from it.
class Divergence {
 public:
  virtual ~Divergence() = default;

  // KL(P_mu || P_lambda) for mu and lambda in [low_mean(), high_mean()];
  // +inf where P_lambda cannot produce what P_mu does (Bernoulli lambda = 0
  // with mu > 0).
  virtual double operator()(double mu, double lambda) const = 0;
  // d/dlambda and d^2/dlambda^2 of the above, for lambda inside the range.
  virtual double slope(double mu, double lambda) const = 0;
  virtual double curvature(double mu, double lambda) const = 0;

  // The means the family has: a closed interval, possibly infinite
  // (Gaussian: the whole line; Bernoulli: [0, 1]; Poisson and exponential:
  // [0, inf)).
  virtual double low_mean() const = 0;
  virtual double high_mean() const = 0;

  // Whether KL(mu, .) is convex in lambda over the whole range for every mu
  // (the Gaussian, Bernoulli and Poisson divergences; the exponential one is
  // concave past 2 mu): finding an alternative by its multiplier needs it
  // (theory::kl_optimal_allocation, pf-alloc's plan).
  virtual bool convex() const { return true; }

  // sigma if the divergence is (lambda - mu)^2 / (2 sigma^2), the Gaussian
  // one, whose program the closed-form solver takes (docs/allocation.md);
  // NaN otherwise.
  virtual double quadratic_sigma() const { return std::numeric_limits<double>::quiet_NaN(); }
};

}  // namespace pfmab::families
