// C* with a family's KL (kl_allocation.hpp, docs/allocation.md, "Other
// reward families: the KL program"), by a barrier method over the pulls x:
// Newton steps on
//
//   phi_t(x) = t c . x - sum_j log(F_j(x) - 1) - sum_i log x_i,
//
// F_j(x) the least information of constraint j's alternatives
// (kl_alternative.hpp), concave and 1-homogeneous in x. Its gradient is the
// closest alternative's divergences a_j (the envelope theorem) and its
// Hessian, from the multiplier's condition x_n KL'_n = eta w_n, is
// -diag(g^2 / (x h)) + v v^T / S, v_n = g_n w_n / (x_n h_n), S = sum_n
// w_n^2 / (x_n h_n) (g, h: the divergence's slope and curvature at the
// move). Every iterate is certified: multipliers y >= 0 made to satisfy
// sum_j y_j a_j <= c are a feasible point of the dual of the linear program
// the alternatives cut, so sum_j y_j bounds C* from below (the barrier's
// 1 / (t (F_j - 1)) at every iterate, the least-squares KKT multipliers at
// each centred one), and x / min_j F_j(x) is feasible (1-homogeneity), so
// c . x / min_j F_j bounds it from above.
//
// A KL concave past some move (the exponential one past 2 mu) splits each
// constraint into branches (kl_alternative.hpp, branches()): the convex
// one, and one per move that can reach its concave stretch, searched over
// it. A concave branch's least jumps between local minima as x moves, a
// kink where Newton steps stall, so the barrier holds instead its pieces:
// the branch with that move held where the branch's least was at a centred
// point (recentre below). A piece is one of the branch's alternatives, so
// it is above the branch everywhere, and smooth: its moves are all convex
// or held, the Hessian above with the held one left out (the formula also
// holds for a free move in its concave stretch at a nondegenerate local
// minimum, h < 0 and S < 0, checked by finite differences, but no
// constraint of the barrier has one). The certificate reads the branches
// themselves: F_j is the least of them.
#include "pfmab/theory/kl_allocation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/QR>

#include "pfmab/theory/kl_alternative.hpp"

namespace pfmab::theory {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
// Newton steps are 30 to 60 on the paper's games; the cap only ends a stall.
constexpr unsigned kMaxSteps = 400;
// t grows by this factor once phi_t is nearly centred (Newton decrement
// squared below kCentred).
constexpr double kRaise = 20.0;
constexpr double kCentred = 1e-6;
// A decrement below which a failed line search is rounding, not a bad step.
constexpr double kRoundingDecrement = 1e-2;
// Steps stop at this share of the way to x = 0.
constexpr double kToBoundary = 0.99;
// Iterations in a row that narrow the certified gap no further, after which
// the solve ends (double precision).
constexpr unsigned kStall = 12;

struct Program {
  std::vector<double> cost;                // c_i = D'_{k,n}, one per variable
  std::vector<std::uint32_t> client, arm;  // each variable's (n, k)
  // The barrier's constraints: every constraint's convex branch and the
  // pieces of its concave ones (add_pieces).
  std::vector<KlConstraint> constraints;
  // The concave branches (a move in its concave stretch, searched): their
  // least with the convex branch's is the constraint's F, which the
  // certificate's upper bound reads. The barrier does not hold them: the
  // least over a concave stretch jumps between local minima as x moves (a
  // kink), where Newton steps stall.
  std::vector<KlConstraint> searched;
  std::vector<std::vector<double>> held;  // each searched branch's pieces' moves
};

// The program's variables and constraints (docs/allocation.md): a variable
// x_{k,n} for every arm k that client n explores (neither its mixed-optimal
// arm nor tied to it), a constraint for every such (k, m), whose terms are
// arm k's means at the clients exploring it, moved up, and client m's best
// arm's at the clients exploring that, moved down, each as far as the
// family's range allows. A constraint no alternative within the range can
// meet is dropped (nothing to tell apart), and so is a variable no kept
// constraint holds (its optimal pulls are 0). Returns false at a zero gap
// that is not passed as tied.
bool build(const model::MixedModel& mixed, const families::Divergence& kl,
           std::span<const std::uint8_t> tied, Program& program) {
  const std::size_t clients = mixed.clients(), arms = mixed.arms();
  const auto explores = [&](std::size_t n, std::size_t k) {
    return k != mixed.optimal_arm(n) && (tied.empty() || tied[n * arms + k] == 0);
  };
  const double other = (1.0 - mixed.alpha()) / static_cast<double>(clients);
  const auto weight = [&](std::size_t n, std::size_t m) {
    return n == m ? mixed.alpha() + other : other;
  };
  std::vector<std::uint32_t> slot(clients * arms, kNone);  // variable of (n, k), pre-pruning
  std::vector<double> cost;
  for (std::size_t n = 0; n < clients; ++n) {
    for (std::size_t k = 0; k < arms; ++k) {
      if (!explores(n, k)) continue;
      if (!(mixed.gap(n, k) > 0.0)) return false;
      slot[n * arms + k] = static_cast<std::uint32_t>(cost.size());
      cost.push_back(mixed.gap(n, k));
    }
  }
  std::vector<KlConstraint> constraints;
  for (std::size_t m = 0; m < clients; ++m) {
    const std::size_t best = mixed.optimal_arm(m);
    for (std::size_t k = 0; k < arms; ++k) {
      if (!explores(m, k)) continue;
      KlConstraint c;
      c.client = static_cast<std::uint32_t>(m);
      c.arm = static_cast<std::uint32_t>(k);
      c.gap = mixed.gap(m, k);
      double reachable = 0.0;  // the largest lead the range lets the moves close
      for (const auto& [moved, direction] : {std::pair{k, 1.0}, std::pair{best, -1.0}}) {
        for (std::size_t n = 0; n < clients; ++n) {
          const double w = weight(n, m);
          if (slot[n * arms + moved] == kNone || !(w > 0.0)) continue;
          reachable +=
              add_term(kl, c, slot[n * arms + moved], mixed.local_mean(n, moved), w, direction);
        }
      }
      // No alternative in the range puts arm k strictly ahead: no constraint.
      if (!(reachable > c.gap)) continue;
      for (auto& branch : branches(std::move(c))) {
        auto& to = branch.concave == KlConstraint::kConvex ? constraints : program.searched;
        to.push_back(std::move(branch));
      }
    }
  }
  // Only the variables some constraint holds.
  std::vector<std::uint32_t> kept(cost.size(), kNone);
  for (auto* list : {&constraints, &program.searched}) {
    for (auto& c : *list) {
      for (auto& t : c.terms) {
        if (kept[t.variable] == kNone) {
          kept[t.variable] = static_cast<std::uint32_t>(program.cost.size());
          program.cost.push_back(cost[t.variable]);
        }
        t.variable = kept[t.variable];
      }
    }
  }
  program.held.resize(program.searched.size());
  program.client.resize(program.cost.size());
  program.arm.resize(program.cost.size());
  for (std::size_t n = 0; n < clients; ++n) {
    for (std::size_t k = 0; k < arms; ++k) {
      const auto s = slot[n * arms + k];
      if (s != kNone && kept[s] != kNone) {
        program.client[kept[s]] = static_cast<std::uint32_t>(n);
        program.arm[kept[s]] = static_cast<std::uint32_t>(k);
      }
    }
  }
  program.constraints = std::move(constraints);
  return true;
}

// F_j(x) for every constraint; the least of them.
double solve_all(const families::Divergence& kl, std::span<const double> x,
                 std::vector<KlConstraint>& constraints) {
  double least = kInfinity;
  for (auto& c : constraints) {
    solve_alternative(kl, x, c);
    least = std::min(least, c.value);
  }
  return least;
}

// A piece for each concave branch whose least at x (solved there) is below
// `near` and at a move none of its pieces holds (to 1e-9 of it): the branch
// with that move held, smooth and concave in x, and at least the branch's
// least at every x (it is one of its alternatives). Near the optimum the
// pieces at the last centred points hold the branch's least to second order
// in the moves' drift. Returns whether any was added.
bool add_pieces(Program& program, double near) {
  bool added = false;
  for (std::size_t j = 0; j < program.searched.size(); ++j) {
    const auto& branch = program.searched[j];
    if (!(branch.value < near)) continue;
    const double move = branch.terms[branch.concave].move;
    auto& held = program.held[j];
    if (std::any_of(held.begin(), held.end(),
                    [&](double h) { return std::abs(h - move) <= 1e-9 * move; })) {
      continue;
    }
    held.push_back(move);
    program.constraints.push_back(branch);
    program.constraints.back().held = move;
    added = true;
  }
  return added;
}

double barrier(const Program& program, double t, std::span<const double> x) {
  double phi = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) phi += t * program.cost[i] * x[i] - std::log(x[i]);
  for (const auto& c : program.constraints) phi -= std::log(c.value - 1.0);
  return phi;
}

// sum_j y_j after each y_j is scaled by the least c_i / (A^T y)_i (at most
// 1) over its own variables i: then (A^T y)_i <= c_i at every i, a feasible
// point of the cuts' dual (kl_allocation.hpp), whatever the y given. Only
// the multipliers of constraints holding a variable where y overshoots
// shrink (a uniform scaling would shrink all of them by the worst ratio).
double feasible_bound(const Program& program, std::span<const KlConstraint* const> cuts,
                      std::span<const double> y, std::vector<double>& by_variable) {
  std::fill(by_variable.begin(), by_variable.end(), 0.0);
  for (std::size_t j = 0; j < y.size(); ++j) {
    for (const auto& term : cuts[j]->terms) {
      by_variable[term.variable] += y[j] * term.divergence;
    }
  }
  double total = 0.0;
  for (std::size_t j = 0; j < y.size(); ++j) {
    double scale = 1.0;
    for (const auto& term : cuts[j]->terms) {
      if (by_variable[term.variable] > program.cost[term.variable]) {
        scale = std::min(scale, program.cost[term.variable] / by_variable[term.variable]);
      }
    }
    total += scale * y[j];
  }
  return total;
}

// The lower bound of the multipliers y_j = 1 / (t (F_j - 1)) with the
// current alternatives' cuts, scaled to dual feasibility.
double dual_bound(const Program& program, double t, std::vector<double>& by_variable) {
  std::vector<double> y;
  std::vector<const KlConstraint*> cuts;
  y.reserve(program.constraints.size());
  cuts.reserve(program.constraints.size());
  for (const auto& c : program.constraints) {
    y.push_back(1.0 / (t * (c.value - 1.0)));
    cuts.push_back(&c);
  }
  return feasible_bound(program, cuts, y, by_variable);
}

// The bound of the multipliers that solve the centring condition sum_j y_j
// a_j = c - 1 / (t x) (the barrier's stationarity) exactly, in the least
// squares sense, with the current alternatives' cuts a_j, clipped at 0 and
// made dual feasible. Near the optimum these are the KKT multipliers with the
// closest alternatives, whose bound is C* (docs/allocation.md); the
// barrier's own 1 / (t (F_j - 1)) are far less accurate, F_j - 1 being
// tiny where a constraint binds.
double kkt_bound(const Program& program, std::span<const KlConstraint* const> constraints, double t,
                 std::span<const double> x, std::vector<double>& by_variable) {
  const auto rows = static_cast<Eigen::Index>(x.size());
  Eigen::MatrixXd cuts = Eigen::MatrixXd::Zero(rows, static_cast<Eigen::Index>(constraints.size()));
  Eigen::VectorXd cost(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    cost(i) =
        program.cost[static_cast<std::size_t>(i)] - 1.0 / (t * x[static_cast<std::size_t>(i)]);
  }
  for (std::size_t j = 0; j < constraints.size(); ++j) {
    for (const auto& term : constraints[j]->terms) {
      cuts(term.variable, static_cast<Eigen::Index>(j)) = term.divergence;
    }
  }
  const Eigen::VectorXd solved = cuts.colPivHouseholderQr().solve(cost);
  std::vector<double> y(constraints.size());
  for (std::size_t j = 0; j < y.size(); ++j) {
    y[j] = std::max(0.0, solved(static_cast<Eigen::Index>(j)));
  }
  return feasible_bound(program, constraints, y, by_variable);
}

// kkt_bound at a centred point. With pieces (a concave KL) the least squares
// take only the cuts near binding (slack within 1000 times the least), or
// they spread the multipliers over the many pieces far from it; and the
// better of two sets: the barrier's constraints, and the convex branches
// with the concave branches' closest alternatives at x in place of their
// pieces (the optimum's alternatives are between the pieces near it).
double centred_bound(const Program& program, double t, std::span<const double> x,
                     std::vector<double>& by_variable) {
  std::vector<const KlConstraint*> cuts;
  for (const auto& c : program.constraints) cuts.push_back(&c);
  if (program.searched.empty()) return kkt_bound(program, cuts, t, x, by_variable);
  double least = kInfinity;
  for (const auto& c : program.constraints) least = std::min(least, c.value - 1.0);
  const auto near = [&](const KlConstraint* c) { return c->value - 1.0 <= 1e3 * least; };
  std::erase_if(cuts, [&](const KlConstraint* c) { return !near(c); });
  const double with_pieces = kkt_bound(program, cuts, t, x, by_variable);
  std::erase_if(cuts, [](const KlConstraint* c) { return c->concave != KlConstraint::kConvex; });
  for (const auto& c : program.searched) {
    if (near(&c)) cuts.push_back(&c);
  }
  return std::max(with_pieces, kkt_bound(program, cuts, t, x, by_variable));
}

}  // namespace

OptimalAllocation kl_optimal_allocation(const model::MixedModel& mixed,
                                        const families::Divergence& kl, double gap_share,
                                        const StopToken& stop, std::span<const std::uint8_t> tied) {
  OptimalAllocation out;
  const std::size_t arms = mixed.arms();
  out.pulls.assign(mixed.clients() * arms, 0.0);
  out.shares.assign(mixed.clients() * arms, 0.0);
  for (std::size_t m = 0; m < mixed.clients(); ++m) {
    out.pulls[m * arms + mixed.optimal_arm(m)] = kInfinity;
  }
  for (std::size_t i = 0; i < tied.size(); ++i) {
    if (tied[i] != 0) out.pulls[i] = kInfinity;
  }
  Program program;
  if (!build(mixed, kl, tied, program)) {
    out.constant = kInfinity;  // a tie: no finite exploration tells the arms apart
    return out;
  }
  const std::size_t n = program.cost.size();
  // nothing to tell apart: C* = 0
  if (program.constraints.empty() && program.searched.empty()) return out;
  auto& constraints = program.constraints;
  auto& searched = program.searched;

  // The start: even pulls, scaled (1-homogeneity) so that every constraint
  // holds twice over; t balances the objective against the barrier.
  std::vector<double> x(n, 1.0), next(n), dx(n), gradient(n), by_variable(n), best;
  solve_all(kl, x, searched);
  add_pieces(program, kInfinity);
  const double start = 2.0 / std::min(solve_all(kl, x, constraints), solve_all(kl, x, searched));
  for (auto& v : x) v *= start;
  solve_all(kl, x, constraints);
  const auto dot = [](std::span<const double> a, std::span<const double> b) {
    double s = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
  };
  const double terms = static_cast<double>(n + constraints.size());
  double t = terms / dot(program.cost, x);

  Eigen::MatrixXd hessian(n, n);
  Eigen::LLT<Eigen::MatrixXd> factor(n);
  double upper = kInfinity, lower = 0.0, last_gap = kInfinity;
  double best_scale = 1.0;
  unsigned stalled = 0;
  // The certificate at x: its feasible multiple (the least constraint value
  // scales x onto the feasible set, by homogeneity), and the dual bound.
  const auto certify = [&] {
    double least = solve_all(kl, x, searched);
    for (const auto& c : constraints) least = std::min(least, c.value);
    if (const double value = dot(program.cost, x) / least; value < upper) {
      upper = value;
      best = x;
      best_scale = 1.0 / least;
    }
    lower = std::max(lower, dual_bound(program, t, by_variable));
  };
  // At a centred point: the pieces of the concave branches' least there,
  // for the branches within twice the least constraint's value (the others
  // are far from binding). A piece x does not meet (its branch's least moved
  // below 1 as x did) scales x up (1-homogeneity) until the least constraint
  // is as it was before, and t back to at most terms / (upper - lower),
  // where the barrier's own gap is the certified one.
  const auto recentre = [&] {
    double before = kInfinity;
    for (const auto& c : constraints) before = std::min(before, c.value);
    if (!add_pieces(program, 2.0 * before)) return;
    stalled = 0;
    if (const double least = solve_all(kl, x, constraints); least < before) {
      for (auto& v : x) v *= before / least;
      solve_all(kl, x, constraints);
      t = std::min(t, terms / (upper - lower));
    }
  };
  while (out.newton_steps < kMaxSteps) {
    stop.throw_if_requested();
    certify();
    const double gap = upper - lower;
    if (gap <= gap_share * upper) break;
    stalled = gap < last_gap ? 0 : stalled + 1;
    if (stalled >= kStall) break;
    last_gap = std::min(last_gap, gap);

    // the Newton system of phi_t at x
    hessian.setZero();
    for (std::size_t i = 0; i < n; ++i) {
      gradient[i] = t * program.cost[i] - 1.0 / x[i];
      hessian(i, i) = 1.0 / (x[i] * x[i]);
    }
    for (const auto& c : constraints) {
      const double slack = c.value - 1.0;
      // -Hessian of F_j (file comment), over the moves that answer x: not
      // those held by the range. A move at a linear divergence's kink (the
      // Poisson KL(0, lambda) = lambda) pins the multiplier, eta = x_n KL' /
      // w_n: the limit of the formula as its curvature goes to 0, a sum of
      // rank ones q_n (g_n e_n - g_0 w_n / w_0 e_0)(...)^T over the others.
      const KlConstraint::Term* kink = nullptr;
      for (const auto& a : c.terms) {
        if (!a.at_reach && a.move > 0.0 && a.curvature == 0.0) kink = &a;
      }
      const auto responsive = [&](const KlConstraint::Term& a) {
        return &a != kink && !a.at_reach && a.curvature > 0.0 && std::isfinite(a.curvature);
      };
      double spread = 0.0;
      for (const auto& a : c.terms) {
        gradient[a.variable] -= a.divergence / slack;
        if (responsive(a)) spread += a.weight * a.weight / (x[a.variable] * a.curvature);
        for (const auto& b : c.terms) {
          hessian(a.variable, b.variable) += a.divergence * b.divergence / (slack * slack);
        }
      }
      for (const auto& a : c.terms) {
        if (!responsive(a)) continue;
        const double q = 1.0 / (x[a.variable] * a.curvature) / slack;
        if (kink) {
          const double toward = kink->slope * a.weight / kink->weight;
          hessian(a.variable, a.variable) += q * a.slope * a.slope;
          hessian(a.variable, kink->variable) -= q * a.slope * toward;
          hessian(kink->variable, a.variable) -= q * a.slope * toward;
          hessian(kink->variable, kink->variable) += q * toward * toward;
          continue;
        }
        hessian(a.variable, a.variable) += q * a.slope * a.slope;
        const double va = a.slope * a.weight / (x[a.variable] * a.curvature);
        for (const auto& b : c.terms) {
          if (!responsive(b)) continue;
          const double vb = b.slope * b.weight / (x[b.variable] * b.curvature);
          hessian(a.variable, b.variable) -= va * vb / (spread * slack);
        }
      }
    }
    // equilibrated (unit diagonal) before the factorisation: the barrier's
    // 1 / x^2 and the cuts' a a^T / (F - 1)^2 differ by many orders
    Eigen::VectorXd scale = hessian.diagonal().cwiseSqrt().cwiseInverse();
    hessian = scale.asDiagonal() * hessian * scale.asDiagonal();
    factor.compute(hessian);
    ++out.newton_steps;
    if (factor.info() != Eigen::Success) break;
    const Eigen::VectorXd rhs = -scale.cwiseProduct(
        Eigen::Map<const Eigen::VectorXd>(gradient.data(), static_cast<Eigen::Index>(n)));
    Eigen::Map<Eigen::VectorXd>(dx.data(), static_cast<Eigen::Index>(n)) =
        scale.cwiseProduct(factor.solve(rhs));
    const double decrement = -dot(gradient, dx);
    if (decrement <= kCentred) {
      lower = std::max(lower, centred_bound(program, t, x, by_variable));
      if (upper - lower <= gap_share * upper) break;
      recentre();
      t *= kRaise;
      continue;
    }

    // a backtracking line search that keeps x > 0 and every F_j > 1
    double step = 1.0;
    for (std::size_t i = 0; i < n; ++i) {
      if (dx[i] < 0.0) step = std::min(step, -kToBoundary * x[i] / dx[i]);
    }
    const double phi = barrier(program, t, x);
    bool moved = false;
    for (; step >= 1e-12; step *= 0.5) {
      for (std::size_t i = 0; i < n; ++i) next[i] = x[i] + step * dx[i];
      if (solve_all(kl, next, constraints) > 1.0 &&
          barrier(program, t, next) <= phi - 0.01 * step * decrement) {
        moved = true;
        break;
      }
    }
    if (!moved) {
      // No step decreases phi_t beyond its rounding: centred as well as
      // double precision allows, if nearly so; otherwise stuck.
      solve_all(kl, x, constraints);
      if (decrement > kRoundingDecrement) break;
      lower = std::max(lower, centred_bound(program, t, x, by_variable));
      recentre();
      t *= kRaise;
      continue;
    }
    x.swap(next);
  }
  certify();  // the final point's, if the loop ended before reading it
  lower = std::max(lower, centred_bound(program, t, x, by_variable));

  out.constant = upper;
  out.gap = std::max(0.0, (upper - lower) / upper);
  double total = 0.0;
  for (const auto& c : constraints) total += 1.0 / (c.value - 1.0);
  for (const auto& c : constraints) {
    out.shares[c.client * arms + c.arm] += 1.0 / (c.value - 1.0) / total;
  }
  for (std::size_t i = 0; i < n; ++i) {
    out.pulls[program.client[i] * arms + program.arm[i]] = best[i] * best_scale;
  }
  return out;
}

}  // namespace pfmab::theory
