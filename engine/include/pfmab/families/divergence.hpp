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
  // concave past 2 mu): finding the largest weighted sum of means in a region
  // sum_n T_n KL(mu_n, lambda_n) <= level by its multiplier needs it
  // (pf-alloc's plan and likelihood-ratio test, centralized-kl-ucb).
  // theory::kl_optimal_allocation does not: it reads convex_move.
  virtual bool convex() const { return true; }

  // How far KL(mu, mu + direction delta) stays convex in the move delta
  // (direction +1 up, -1 down): +inf for a family convex everywhere (the
  // default), less where it turns concave (the exponential upward move, mu:
  // concave past lambda = 2 mu) or is linear (the Poisson move up from a
  // mean of 0, 0: KL(0, lambda) = lambda, concave as well as convex). Past it the divergence must stay concave
  // up to the range's end, which must then be unbounded: the C* program's
  // global inner solve (theory::solve_alternative) relies on both.
  virtual double convex_move(double /*mu*/, double /*direction*/) const {
    return std::numeric_limits<double>::infinity();
  }

  // sigma if the divergence is (lambda - mu)^2 / (2 sigma^2), the Gaussian
  // one, whose program the closed-form solver takes (docs/allocation.md);
  // NaN otherwise.
  virtual double quadratic_sigma() const { return std::numeric_limits<double>::quiet_NaN(); }
};

// d KL(mu, mu + direction delta) / d delta, direction +1 (up) or -1 (down);
// NaN (a pole at the range's end) as +inf.
double slope_along(const Divergence& kl, double mu, double direction, double delta);

// The move delta in [0, limit] (limit finite) of a mean mu in `direction` at
// which slope_along is `slope`; `limit` if the slope there is still below, 0
// for a slope <= 0. KL(mu, .) must be convex over the moves considered (the
// slope rising in delta). Safeguarded Newton from `guess` (a previous move,
// or anything outside (0, limit) for none), to 1e-15 of max(delta, |mu|)
// (what a slope read at mu + delta resolves). Shared by the C* program's
// alternatives (theory) and centralized-kl-ucb.
double move_at_slope(const Divergence& kl, double mu, double direction, double limit, double slope,
                     double guess);

// The upper confidence mean of kl-UCB (Garivier & Cappe 2011; Cappe,
// Garivier, Maillard, Munos & Stoltz 2013): the largest q in
// [mu, high_mean()] with KL(mu, q) <= level; mu at level <= 0, high_mean()
// where even it is within the level (mu at the top of a bounded range, as a
// Bernoulli mean of 1). KL(mu, .) need only increase on [mu, high_mean())
// (it does for every natural exponential family: its slope is
// (q - mu) / V(q) > 0), not be convex there. Safeguarded Newton, bracketed
// (by doubling on an unbounded range), to 1e-12 relative to q - mu: the
// index policies need only the order of the indices. `guess`, a start near
// the root (the arm's last index), saves the bracketing and most steps;
// NaN, or anything outside (mu, high_mean()), for none. A law no other mean
// comes near (infinite curvature at mu: noiseless Gaussian rewards) has mu.
double upper_confidence_mean(const Divergence& kl, double mu, double level,
                             double guess = std::numeric_limits<double>::quiet_NaN());

}  // namespace pfmab::families
