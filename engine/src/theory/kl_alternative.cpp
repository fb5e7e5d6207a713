// One constraint's closest alternative (kl_alternative.hpp): the inner
// problem
//
//   V = min sum_n x_n K_n(delta_n)  over 0 <= delta_n <= reach_n,  sum_n w_n delta_n = D',
//
// K_n(delta) = KL(mu_n, mu_n + direction_n delta). Where every K_n is convex
// its one multiplier eta solves it (x_n K_n'(delta_n) = eta w_n, a monotone
// root). Where some K_n turn concave past a move (Divergence::convex_move:
// the exponential KL(mu, .) past 2 mu, concave from there to the unbounded
// end of its range) the solve is global by this fact:
//
//   Some global minimum has at most one move strictly inside a concave
//   stretch. Proof: if two moves s and r are, move along the constraint,
//   delta_s + w_r t and delta_r - w_s t: the objective is then a sum of two
//   concave functions of t, concave, so its least over the t keeping both
//   moves in their concave stretches is at an end of that interval, where one
//   of them has left the stretch's interior; its other ends are the convex
//   end or the range's, and the range's is unbounded. Repeat (each step
//   takes a move out for good).
//
// So V is the least of (a) the convex problem with every move capped at its
// convex end, and (b) for each move s that can reach its concave stretch, the
// least over delta_s in [convex end, D' / w_s] of
//
//   h(delta_s) = x_s K_s(delta_s) + V_s(D' - w_s delta_s),
//
// V_s the capped convex problem of the other moves closing the rest of the
// lead (0 if none is left, +inf if they cannot close it). V_s is convex in
// the lead, and on an interval [l, r] the concave K_s is at least its chord,
// so the least of chord + V_s (a convex problem in which s costs the chord's
// slope: one evaluation of the others at the multiplier x_s slope / w_s)
// bounds h from below there, to within x_s max|K_s''| (r - l)^2 / 8; its
// minimiser is a feasible point, an upper bound. A branch and bound on these
// bounds finds h's least to kValueTolerance, globally.
//
// The KL program takes (a) and each (b) as constraints of their own, its
// branches (branches()): solve_alternative solves one.
#include "pfmab/theory/kl_alternative.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace pfmab::theory {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr std::size_t kNoTerm = std::numeric_limits<std::size_t>::max();
// Safeguarded Newton ends in 5 to 10 steps; the cap only ends a stall.
constexpr int kMaxSteps = 200;
// The lead's residual that counts as closed, as a share of the gap: the value
// it leaves unaccounted for, eta times it, is corrected for to first order.
constexpr double kLeadTolerance = 1e-14;
// The branch and bound over a concave move stops where no interval's bound
// is below the best value by this share: far below the certificate's 1e-6.
constexpr double kValueTolerance = 1e-13;
// Intervals it may split; 20 to 40 halvings reach the tolerance, the cap
// only ends a stall.
constexpr int kMaxIntervals = 4000;

// The moves of every term but `skip` at the multiplier eta: each where its
// slope is eta w_n / x_n, within its convex stretch and 2 gap / w_n (no move
// need go further: it would close the lead alone). Returns the lead
// sum_n w_n delta_n, and d lead / d eta in `derivative`.
double lead_at(const families::Divergence& kl, std::span<const double> x,
               std::vector<KlConstraint::Term>& terms, std::size_t skip, double gap, double eta,
               double& derivative) {
  double sum = 0.0;
  derivative = 0.0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (i == skip) continue;
    auto& t = terms[i];
    const double x_n = x[t.variable];
    const double limit = std::min(t.convex_reach, 2.0 * gap / t.weight);
    t.move = families::move_at_slope(kl, t.mean, t.direction, limit, eta * t.weight / x_n, t.move);
    t.at_reach = t.move >= limit;
    sum += t.weight * t.move;
    t.curvature = kl.curvature(t.mean, t.mean + t.direction * t.move);
    // a linear divergence (the Poisson KL(0, lambda) = lambda) moves in a
    // jump at its one slope: the lead's root is then that kink
    if (!t.at_reach && t.curvature > 0.0) derivative += t.weight * t.weight / (x_n * t.curvature);
  }
  return sum;
}

struct Closed {
  double multiplier;
  double residual;  // the lead left over, sum_n w_n delta_n - gap
};

// The convex problem of every term but `skip`, each capped at its convex
// end, closing `gap` (which they can: below the sum of their capped leads):
// the multiplier's monotone root, from `eta` (none: <= 0). Sets their moves.
Closed close_lead(const families::Divergence& kl, std::span<const double> x,
                  KlConstraint& constraint, std::size_t skip, double gap, double eta) {
  auto& terms = constraint.terms;
  double derivative = 0.0;
  const auto lead = [&](double at) {
    return lead_at(kl, x, terms, skip, gap, at, derivative) - gap;
  };
  // No start: the quadratic approximation's (exact for Gaussian rewards)
  // eta = gap / sum_n w_n^2 / (x_n KL''(mu_n)).
  if (!(eta > 0.0)) {
    double spread = 0.0;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      if (i == skip) continue;
      const auto& t = terms[i];
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
        if (i == skip) continue;
        terms[i].move = below[i] + share * (above[i] - below[i]);
        terms[i].at_reach = false;
      }
      residual = -gap;
      for (std::size_t i = 0; i < terms.size(); ++i) {
        if (i != skip) residual += terms[i].weight * terms[i].move;
      }
      eta = lo;
      break;
    }
    eta = next;
    residual = lead(eta);
  }
  return {eta, residual};
}

// sum_n x_n K_n(delta_n) over the terms but `skip`, at their moves.
double information(const families::Divergence& kl, std::span<const double> x,
                   const std::vector<KlConstraint::Term>& terms, std::size_t skip) {
  double sum = 0.0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const auto& t = terms[i];
    if (i != skip && t.move > 0.0) sum += x[t.variable] * kl(t.mean, t.mean + t.direction * t.move);
  }
  return sum;
}

// The moves of term s that keep it in its concave stretch while the others,
// capped at their convex ends, close the rest of the lead: [start, end]
// (empty if start > end); `others`, the largest lead they can close.
struct ConcaveSpan {
  double start, end, others;
};
ConcaveSpan concave_span(const KlConstraint& constraint, std::size_t s) {
  const auto& terms = constraint.terms;
  double others = 0.0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (i != s) others += terms[i].weight * terms[i].convex_reach;
  }
  const auto& t = terms[s];
  const double end = std::min(t.reach, constraint.gap / t.weight);
  // no concave stretch, or none the lead lets it reach
  if (!(t.convex_reach < t.reach && t.convex_reach <= end)) return {1.0, 0.0, others};
  return {std::max(t.convex_reach, (constraint.gap - others) / t.weight), end, others};
}

// Branch (b) of term s (file comment), by branch and bound.
class ConcaveSolve {
 public:
  ConcaveSolve(const families::Divergence& kl, std::span<const double> x, KlConstraint& constraint)
      : kl_(kl), x_(x), c_(constraint), terms_(constraint.terms) {}

  // Sets the moves of the branch's least alternative; returns its
  // multiplier (the others', 0 if they do not move).
  double solve() {
    const std::size_t s = c_.concave;
    const auto span = concave_span(c_, s);
    const bool held = !std::isnan(c_.held);
    start_ = held ? c_.held : span.start;
    end_ = held ? c_.held : span.end;
    best_multiplier_ = c_.multiplier;  // the warm start of the others' solves
    if (start_ < end_) {
      search(s, span.others);
    } else {
      h(s, start_, span.others);  // held, or the move alone closes the lead
    }
    for (std::size_t i = 0; i < terms_.size(); ++i) {
      terms_[i].move = best_moves_[i];
      terms_[i].at_reach = best_at_reach_[i] != 0;
    }
    return best_multiplier_;
  }

 private:
  // Keeps the current moves if `value` is the least yet.
  void keep(double value, double multiplier) {
    if (!(value < best_)) return;
    best_ = value;
    best_multiplier_ = multiplier;
    best_moves_.resize(terms_.size());
    best_at_reach_.resize(terms_.size());
    for (std::size_t i = 0; i < terms_.size(); ++i) {
      best_moves_[i] = terms_[i].move;
      best_at_reach_[i] = terms_[i].at_reach ? 1 : 0;
    }
  }

  double divergence(std::size_t s, double move) const {
    const auto& t = terms_[s];
    return kl_(t.mean, t.mean + t.direction * move);
  }

  // h(delta_s) (file comment), kept if least; `others` the largest lead
  // the other moves can close.
  double h(std::size_t s, double move, double others) {
    auto& t = terms_[s];
    t.move = move;
    // held at an end of its stretch: x moves the others only
    t.at_reach = move <= start_ || move >= end_;
    const double rest = c_.gap - t.weight * move;
    double value = x_[t.variable] * divergence(s, move), multiplier = 0.0;
    if (rest >= others) {
      // the others all at their caps (the interval's lower end, by its
      // construction, up to rounding)
      for (std::size_t i = 0; i < terms_.size(); ++i) {
        if (i == s) continue;
        terms_[i].move = terms_[i].convex_reach;
        terms_[i].at_reach = true;
      }
    } else if (rest > 0.0) {
      const Closed closed = close_lead(kl_, x_, c_, s, rest, best_multiplier_);
      value -= closed.multiplier * closed.residual;
      multiplier = closed.multiplier;
    } else {
      for (std::size_t i = 0; i < terms_.size(); ++i) {
        if (i == s) continue;
        terms_[i].move = 0.0;
        terms_[i].at_reach = false;
      }
    }
    value += information(kl_, x_, terms_, s);
    keep(value, multiplier);
    return value;
  }

  // The least of chord + V_s on [l, r], a lower bound of h there; its
  // minimiser's h is kept if least.
  double bound(std::size_t s, double l, double r, double others) {
    auto& t = terms_[s];
    const double x_s = x_[t.variable];
    const double at_l = divergence(s, l), chord = (divergence(s, r) - at_l) / (r - l);
    const double eta = x_s * chord / t.weight;
    double derivative = 0.0;
    const double lead = lead_at(kl_, x_, terms_, s, c_.gap, eta, derivative);
    const double move = (c_.gap - lead) / t.weight;
    // chord + V_s is convex in delta_s with slope x_s chord - w_s eta(rest):
    // 0 at `move`; outside [l, r] its least is at the nearer end, where the
    // chord is K_s itself
    if (!(move > l)) return h(s, l, others);
    if (!(move < r)) return h(s, r, others);
    t.move = move;
    t.at_reach = false;
    const double rest = information(kl_, x_, terms_, s);
    keep(x_s * divergence(s, move) + rest, eta);
    return x_s * (at_l + chord * (move - l)) + rest;
  }

  void search(std::size_t s, double others) {
    struct Interval {
      double l, r, bound;
    };
    std::vector<Interval> open{{start_, end_, bound(s, start_, end_, others)}};
    for (int split = 0; split < kMaxIntervals && !open.empty(); ++split) {
      const Interval i = open.back();
      open.pop_back();
      if (i.bound >= best_ - kValueTolerance * best_ || !(i.r - i.l > 1e-15 * i.r)) continue;
      const double mid = 0.5 * (i.l + i.r);
      const Interval left{i.l, mid, bound(s, i.l, mid, others)};
      const Interval right{mid, i.r, bound(s, mid, i.r, others)};
      // the lower bound last, to be split first
      if (left.bound < right.bound) {
        open.push_back(right);
        open.push_back(left);
      } else {
        open.push_back(left);
        open.push_back(right);
      }
    }
  }

  const families::Divergence& kl_;
  std::span<const double> x_;
  KlConstraint& c_;
  std::vector<KlConstraint::Term>& terms_;
  double start_ = 0.0, end_ = 0.0;  // the concave move's span
  double best_ = kInfinity, best_multiplier_ = 0.0;
  std::vector<double> best_moves_;
  std::vector<std::uint8_t> best_at_reach_;
};

}  // namespace

double add_term(const families::Divergence& kl, KlConstraint& constraint, std::uint32_t variable,
                double mean, double weight, double direction) {
  const double reach = direction > 0.0 ? kl.high_mean() - mean : mean - kl.low_mean();
  if (!(reach > 0.0) ||
      !std::isfinite(kl(mean, mean + direction * std::min(0.5 * reach, constraint.gap / weight)))) {
    return 0.0;
  }
  const double convex_reach = std::min(reach, kl.convex_move(mean, direction));
  // past the convex end the stretch is concave to an unbounded range's end
  // (Divergence::convex_move): the global solve's premise
  assert(convex_reach == reach || std::isinf(reach));
  constraint.terms.push_back({variable, mean, weight, direction, reach, convex_reach});
  return weight * reach;
}

std::vector<KlConstraint> branches(KlConstraint constraint) {
  std::vector<KlConstraint> out;
  for (std::size_t s = 0; s < constraint.terms.size(); ++s) {
    const auto span = concave_span(constraint, s);
    if (!(span.start <= span.end)) continue;
    out.push_back(constraint);
    out.back().concave = static_cast<std::uint32_t>(s);
  }
  double capacity = 0.0;
  for (const auto& t : constraint.terms) capacity += t.weight * t.convex_reach;
  if (capacity > constraint.gap) out.push_back(std::move(constraint));
  return out;
}

void solve_alternative(const families::Divergence& kl, std::span<const double> x,
                       KlConstraint& constraint) {
  auto& terms = constraint.terms;
  double residual = 0.0;
  if (constraint.concave == KlConstraint::kConvex) {
    const Closed closed =
        close_lead(kl, x, constraint, kNoTerm, constraint.gap, constraint.multiplier);
    constraint.multiplier = closed.multiplier;
    residual = closed.residual;
  } else {
    constraint.multiplier = ConcaveSolve(kl, x, constraint).solve();
    residual = -constraint.gap;
    for (const auto& t : terms) residual += t.weight * t.move;
  }
  // F = sum x_n KL_n, less eta times the lead left over (first order: the
  // value's derivative in the lead is the multiplier).
  double value = -constraint.multiplier * residual;
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
