#include "pfmab/theory/kl_alternative.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pfmab::theory {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Safeguarded Newton ends in 5 to 10 steps; the cap only ends a stall.
constexpr int kMaxSteps = 200;
// The lead's residual that counts as closed, as a share of the gap: the value
// it leaves unaccounted for, eta times it, is corrected for to first order.
constexpr double kLeadTolerance = 1e-14;

}  // namespace

double add_term(const families::Divergence& kl, KlConstraint& constraint, std::uint32_t variable,
                double mean, double weight, double direction) {
  const double reach = direction > 0.0 ? kl.high_mean() - mean : mean - kl.low_mean();
  if (!(reach > 0.0) ||
      !std::isfinite(kl(mean, mean + direction * std::min(0.5 * reach, constraint.gap / weight)))) {
    return 0.0;
  }
  constraint.terms.push_back({variable, mean, weight, direction, reach});
  return weight * reach;
}

void solve_alternative(const families::Divergence& kl, std::span<const double> x,
                       KlConstraint& constraint) {
  auto& terms = constraint.terms;
  const double gap = constraint.gap;
  // The lead sum_n w_n delta_n(eta) - gap, rising in eta; no term need move
  // past 2 gap / w_n (the lead would be closed by it alone).
  double derivative = 0.0;
  const auto lead = [&](double eta) {
    double sum = 0.0;
    derivative = 0.0;
    for (auto& t : terms) {
      const double x_n = x[t.variable];
      const double limit = std::min(t.reach, 2.0 * gap / t.weight);
      t.move =
          families::move_at_slope(kl, t.mean, t.direction, limit, eta * t.weight / x_n, t.move);
      t.at_reach = t.move >= limit;
      sum += t.weight * t.move;
      t.curvature = kl.curvature(t.mean, t.mean + t.direction * t.move);
      // a linear divergence (the Poisson KL(0, lambda) = lambda) moves in a
      // jump at its one slope: the lead's root is then that kink
      if (!t.at_reach && t.curvature > 0.0) derivative += t.weight * t.weight / (x_n * t.curvature);
    }
    return sum - gap;
  };

  // The start: the last solve's multiplier, or the quadratic approximation's
  // (exact for Gaussian rewards) eta = gap / sum_n w_n^2 / (x_n KL''(mu_n)).
  double eta = constraint.multiplier;
  if (!(eta > 0.0)) {
    double spread = 0.0;
    for (const auto& t : terms) {
      const double c = kl.curvature(t.mean, t.mean);
      if (c > 0.0 && std::isfinite(c)) spread += t.weight * t.weight / (x[t.variable] * c);
    }
    eta = spread > 0.0 ? gap / spread : 1.0;
  }
  double lo = 0.0, hi = kInfinity;
  // the moves at the bracket's ends: where the lead jumps across 0 (a
  // linear divergence's kink), the alternative is between them
  std::vector<double>& below = constraint.below;
  std::vector<double>& above = constraint.above;
  below.assign(terms.size(), 0.0);
  above.assign(terms.size(), 0.0);
  double lead_below = -gap, lead_above = kInfinity;
  double residual = lead(eta);
  for (int step = 0; step < kMaxSteps; ++step) {
    if (std::abs(residual) <= kLeadTolerance * gap) break;
    if (residual < 0.0) {
      lo = eta;
      lead_below = residual;
      for (std::size_t i = 0; i < terms.size(); ++i) below[i] = terms[i].move;
    } else {
      hi = eta;
      lead_above = residual;
      for (std::size_t i = 0; i < terms.size(); ++i) above[i] = terms[i].move;
    }
    double next = derivative > 0.0 ? eta - residual / derivative : kInfinity;
    if (!(next > lo && next < hi))
      next = std::isinf(hi) ? 2.0 * std::max(eta, lo) : 0.5 * (lo + hi);
    if (std::isfinite(hi) && hi - lo <= 1e-15 * hi) {
      // a jump: the moves that close the lead exactly, on the segment between
      // the ends' (they differ only in the terms at the kink)
      const double share = -lead_below / (lead_above - lead_below);
      for (std::size_t i = 0; i < terms.size(); ++i) {
        terms[i].move = below[i] + share * (above[i] - below[i]);
        terms[i].at_reach = false;
      }
      residual = -gap;
      for (const auto& t : terms) residual += t.weight * t.move;
      eta = lo;
      break;
    }
    eta = next;
    residual = lead(eta);
  }
  constraint.multiplier = eta;
  // F = sum x_n KL_n, less eta times the lead left over (first order: the
  // value's derivative in the lead is the multiplier).
  double value = -eta * residual;
  for (auto& t : terms) {
    const double lambda = t.mean + t.direction * t.move;
    t.divergence = t.move > 0.0 ? kl(t.mean, lambda) : 0.0;
    t.slope = families::slope_along(kl, t.mean, t.direction, t.move);
    t.curvature = kl.curvature(t.mean, lambda);
    value += x[t.variable] * t.divergence;
  }
  constraint.value = value;
}

}  // namespace pfmab::theory
