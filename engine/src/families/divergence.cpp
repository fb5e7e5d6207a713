#include "pfmab/families/divergence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pfmab::families {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Safeguarded Newton ends in 5 to 10 steps from a cold start and in 1 to 3
// from a warm one; the cap only ends a stall.
constexpr int kMaxSteps = 200;
// The upper confidence mean's tolerance, relative to q - mu (or q): far
// below the differences between indices that decide an argmax, which are of
// the order of the width q - mu over the pulls.
constexpr double kIndexTolerance = 1e-12;

}  // namespace

double slope_along(const Divergence& kl, double mu, double direction, double delta) {
  const double g = direction * kl.slope(mu, mu + direction * delta);
  return std::isnan(g) ? kInfinity : g;
}

double move_at_slope(const Divergence& kl, double mu, double direction, double limit, double slope,
                     double guess) {
  if (!(slope > 0.0)) return 0.0;
  const double at_limit = slope_along(kl, mu, direction, limit);
  if (at_limit <= slope) return limit;
  // The slope rises from 0 at delta = 0 (the divergence is convex): a root in
  // (0, limit), kept bracketed.
  double lo = 0.0, hi = limit;
  double delta = guess > 0.0 && guess < limit ? guess : 0.5 * limit;
  for (int step = 0; step < kMaxSteps; ++step) {
    const double f = slope_along(kl, mu, direction, delta) - slope;
    if (f == 0.0) return delta;
    (f < 0.0 ? lo : hi) = delta;
    double next = delta - f / kl.curvature(mu, mu + direction * delta);
    // Converged, to what the slope can resolve: it is read at mu + delta, a
    // double, so a move finer than 1e-15 of |mu| cannot show. Checked before
    // the bracket, which a last step of a rounding may leave by an ulp (and
    // a bisection would then undo the convergence).
    const double resolution = 1e-15 * std::max(delta, std::abs(mu));
    if (std::abs(next - delta) <= resolution) return next;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (hi - lo <= resolution) return next;
    delta = next;
  }
  return delta;
}

double upper_confidence_mean(const Divergence& kl, double mu, double level, double guess) {
  const double high = kl.high_mean();
  if (!(level > 0.0) || !(mu < high)) return mu;
  // f(q) = KL(mu, q) - level rises from -level at q = mu: its root is kept
  // in [lo, hi]. Newton lands right of it from the left where f is convex,
  // then descends to it; where f is concave (the exponential family past
  // 2 mu) it climbs to it from the left. Either way the bracket catches a
  // step that leaves it.
  double lo = mu, hi = high;
  // An infinite curvature is a law no other mean comes near (noiseless
  // Gaussian rewards): the mean is known.
  const double curvature = kl.curvature(mu, mu);
  if (curvature == kInfinity) return mu;
  double q = guess;
  if (!(q > mu && q < high)) {
    // The quadratic approximation KL ~ (q - mu)^2 / (2 V(mu)), exact for
    // Gaussian rewards; where it says nothing (V(mu) = 0 at an end of the
    // range), a unit step.
    double width = std::sqrt(2.0 * level / curvature);
    if (!(width > 0.0 && std::isfinite(width))) width = std::max(std::abs(mu), 1.0);
    q = mu + width < high ? mu + width : mu + 0.5 * (high - mu);
  }
  for (int step = 0; step < kMaxSteps; ++step) {
    const double f = kl(mu, q) - level;
    if (f == 0.0) return q;
    (f < 0.0 ? lo : hi) = q;
    double next = q - f / kl.slope(mu, q);
    // out of the bracket (or NaN, at a pole): double the move while the
    // range is open above, else bisect
    if (!(next > lo && next < hi)) next = std::isinf(hi) ? mu + 2.0 * (q - mu) : 0.5 * (lo + hi);
    const double scale = std::max(std::abs(next), next - mu);
    if (std::abs(next - q) <= kIndexTolerance * scale || hi - lo <= kIndexTolerance * scale) {
      return next;
    }
    q = next;
  }
  return q;
}

}  // namespace pfmab::families
