// C*, the optimum of the allocation program (docs/allocation.md):
//
//   minimise  sum_i d_i / u_i  over u > 0, one u_i = 1 / x_{k,n} for each
//             client n and arm k other than its best (d_i = D'_{k,n}),
//   subject to, for each such (k, n):
//     e u_{k,n} + c0 (U_k + U_{k*_n}) <= D'_{k,n}^2 / (2 sigma^2),
//
// where U_k sums u_{k,.} over the clients that pay to pull k, c0 =
// ((1 - alpha) / M)^2 is the weight squared of another client's sample and
// c0 + e = (alpha + (1 - alpha) / M)^2 that of a client's own. (W is the
// identity plus a rank-one matrix, so each constraint of the note's section 2
// holds one own variable and two sums over arms; the separable program drops
// the U_{k*_n} term.)
//
// A primal barrier method: Newton steps on t f(u) - sum log s(u), s the
// constraints' slacks, t raised 20-fold per centring (by smaller factors
// once double precision runs short) until the duality gap N / t is a 1e-11
// share of f. Given the sums U, the barrier separates in u,
// so each Newton system reduces to a 2K x 2K dense one (Eigen) and a step
// costs O(N + K^3).
#include "pfmab/theory/allocation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <Eigen/Dense>

namespace pfmab::theory {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// One variable: u = 1 / x of client `client` for arm `arm`, not its best.
struct Variable {
  std::size_t client, arm, best;  // best: the client's mixed-optimal arm
  double cost;                    // D'_{arm, client}: the regret of one pull
  double room;                    // D'^2 / (2 sigma^2): the constraint's right side
};

class Program {
 public:
  Program(const model::MixedModel& mixed, double sigma, Coupling coupling)
      : arms_(mixed.arms()), coupled_(coupling == Coupling::coupled) {
    const double m = static_cast<double>(mixed.clients());
    const double other = (1.0 - mixed.alpha()) / m;
    shared_ = other * other;
    own_ = (mixed.alpha() + other) * (mixed.alpha() + other) - shared_;
    double largest = 0.0;
    for (std::size_t n = 0; n < mixed.clients(); ++n) {
      for (std::size_t k = 0; k < arms_; ++k) {
        if (k != mixed.optimal_arm(n)) largest = std::max(largest, mixed.gap(n, k));
      }
    }
    // The gaps times 2^scale_, largest in [1, 2): exact, and D'^2 no longer
    // underflows for gaps below 1e-154, whose C* is finite (the units below
    // undo it exactly, so the result is the same bits as unscaled).
    scale_ = largest > 0.0 ? -std::ilogb(largest) : 0;
    for (std::size_t n = 0; n < mixed.clients(); ++n) {
      for (std::size_t k = 0; k < arms_; ++k) {
        if (k == mixed.optimal_arm(n)) continue;
        const double gap = std::ldexp(mixed.gap(n, k), scale_);
        vars_.push_back({n, k, mixed.optimal_arm(n), gap, gap * gap / (2.0 * sigma * sigma)});
      }
    }
    // Solved in units where the largest cost and room are 1 (u = room_unit
    // v), so that the barrier's numbers, and where double precision ends,
    // do not depend on sigma or the means' scale.
    for (const auto& v : vars_) {
      cost_unit_ = std::max(cost_unit_, v.cost);
      room_unit_ = std::max(room_unit_, v.room);
    }
    for (auto& v : vars_) {
      v.cost /= cost_unit_;
      v.room /= room_unit_;
    }
  }

  // C* from the objective in the program's units, and x = 1 / u from the
  // solver's u, the gaps unscaled (a cost scales as 2^scale_, a room as its
  // square).
  double constant(double objective) const {
    return objective * std::ldexp(cost_unit_ / room_unit_, scale_);
  }
  double pulls(double u) const { return std::ldexp(1.0 / (u * room_unit_), 2 * scale_); }

  const std::vector<Variable>& variables() const { return vars_; }
  std::size_t size() const { return vars_.size(); }

  double objective(const std::vector<double>& u) const {
    double f = 0.0;
    for (std::size_t i = 0; i < size(); ++i) f += vars_[i].cost / u[i];
    return f;
  }

  // The slack of every constraint at u (negative: violated).
  std::vector<double> slacks(const std::vector<double>& u) const {
    std::vector<double> sum(arms_, 0.0);
    for (std::size_t i = 0; i < size(); ++i) sum[vars_[i].arm] += u[i];
    std::vector<double> s(size());
    for (std::size_t i = 0; i < size(); ++i) {
      const auto& v = vars_[i];
      s[i] = v.room - own_ * u[i] - shared_ * (sum[v.arm] + (coupled_ ? sum[v.best] : 0.0));
    }
    return s;
  }

  // A strictly feasible start: every u equal, at half the largest such value.
  std::vector<double> start() const {
    std::vector<double> payers(arms_, 0.0);
    for (const auto& v : vars_) payers[v.arm] += 1.0;
    double u = kInfinity;
    for (const auto& v : vars_) {
      const double load = own_ + shared_ * (payers[v.arm] + (coupled_ ? payers[v.best] : 0.0));
      u = std::min(u, v.room / load);
    }
    return std::vector<double>(size(), 0.5 * u);
  }

  // (A^T y)_i: the constraints' rows weighted by y, seen from variable i.
  std::vector<double> transpose_times(const std::vector<double>& y) const {
    std::vector<double> by_arm(arms_, 0.0);
    for (std::size_t j = 0; j < size(); ++j) {
      by_arm[vars_[j].arm] += y[j];
      if (coupled_) by_arm[vars_[j].best] += y[j];
    }
    std::vector<double> out(size());
    for (std::size_t i = 0; i < size(); ++i) out[i] = own_ * y[i] + shared_ * by_arm[vars_[i].arm];
    return out;
  }

  // The Newton step of t f - sum log s at u, and its slope (the gradient
  // times the step: minus the Newton decrement squared). The sums U are
  // variables of their own, tied to u by U = G u: the barrier is then
  // separable in u given U, so u is eliminated and what is left is the K x K
  // block system over (dU, the tie's multipliers), whose entries stay
  // bounded as constraints tighten (no difference of large terms is formed).
  std::pair<std::vector<double>, double> newton_step(const std::vector<double>& u,
                                                     const std::vector<double>& s, double t) const {
    const std::size_t n = size(), k = arms_;
    std::vector<double> gu(n), h(n), a(n);
    Eigen::VectorXd gU = Eigen::VectorXd::Zero(k);
    Eigen::MatrixXd schur = Eigen::MatrixXd::Zero(k, k), cross = -Eigen::MatrixXd::Identity(k, k);
    Eigen::VectorXd tie = Eigen::VectorXd::Zero(k);  // diagonal of the tie's block
    Eigen::VectorXd rhs1 = Eigen::VectorXd::Zero(k), rhs2 = Eigen::VectorXd::Zero(k);
    // R_i: variable i's constraint sees U at its arm and, coupled, its client's best arm
    const auto row = [&](std::size_t i, auto&& visit) {
      visit(vars_[i].arm);
      if (coupled_) visit(vars_[i].best);
    };
    for (std::size_t i = 0; i < n; ++i) {
      const double w = 1.0 / (s[i] * s[i]);
      const double curvature = 2.0 * t * vars_[i].cost / (u[i] * u[i] * u[i]);
      gu[i] = own_ / s[i] - t * vars_[i].cost / (u[i] * u[i]);
      h[i] = curvature + own_ * own_ * w;
      a[i] = own_ * shared_ * w;
      const double stiffness = shared_ * shared_ * w * (curvature / h[i]);
      row(i, [&](std::size_t x) {
        gU(x) += shared_ / s[i];
        rhs1(x) += a[i] / h[i] * gu[i];
        cross(x, vars_[i].arm) -= a[i] / h[i];
        row(i, [&](std::size_t y) { schur(x, y) += stiffness; });
      });
      tie(vars_[i].arm) -= 1.0 / h[i];
      rhs2(vars_[i].arm) += gu[i] / h[i];
    }
    rhs1 -= gU;
    Eigen::MatrixXd system(2 * k, 2 * k);
    system << schur, cross, cross.transpose(), Eigen::MatrixXd(tie.asDiagonal());
    Eigen::VectorXd rhs(2 * k);
    rhs << rhs1, rhs2;
    // Its blocks differ in scale by many orders (a tight constraint's 1/s^2
    // against another arm's 1/h): equilibrated, solved by QR with column pivoting
    // (an LU lost the step entirely near alpha = 0), refined.
    Eigen::VectorXd scale(2 * k);
    for (std::size_t j = 0; j < 2 * k; ++j) {
      const double d = std::abs(system(j, j));
      scale(j) = d > 0.0 ? 1.0 / std::sqrt(d) : 1.0;
    }
    const Eigen::MatrixXd scaled = scale.asDiagonal() * system * scale.asDiagonal();
    const auto qr = scaled.colPivHouseholderQr();
    Eigen::VectorXd solution = scale.asDiagonal() * qr.solve(scale.asDiagonal() * rhs);
    for (int round = 0; round < 3; ++round) {
      solution += scale.asDiagonal() * qr.solve(scale.asDiagonal() * (rhs - system * solution));
    }
    const auto dU = solution.head(k), nu = solution.tail(k);
    std::vector<double> du(n);
    std::vector<double> moved(k, 0.0);  // G du: what the step does to the sums
    double slope = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      double seen = 0.0;
      row(i, [&](std::size_t x) { seen += dU(x); });
      du[i] = (-gu[i] - a[i] * seen - nu(vars_[i].arm)) / h[i];
      moved[vars_[i].arm] += du[i];
      slope += gu[i] * du[i];
    }
    // the slope along du itself (U = G u), whatever the solve's rounding
    for (std::size_t x = 0; x < k; ++x) slope += gU(x) * moved[x];
    return {du, slope};
  }

  // The dual function at multipliers y >= 0, scaled at best: a lower bound
  // on the optimum.
  // At b y it is sqrt(b) P - b Q, largest at sqrt(b) = P / (2 Q): the bound
  // given is that best multiple's, P^2 / (4 Q).
  double dual(const std::vector<double>& y) const {
    const auto weights = transpose_times(y);
    double p = 0.0, q = 0.0;
    for (std::size_t i = 0; i < size(); ++i) {
      p += 2.0 * std::sqrt(vars_[i].cost * weights[i]);
      q += y[i] * vars_[i].room;
    }
    return p * p / (4.0 * q);
  }

 private:
  std::size_t arms_;
  bool coupled_;
  double shared_ = 0.0, own_ = 0.0;
  int scale_ = 0;
  double cost_unit_ = 0.0, room_unit_ = 0.0;
  std::vector<Variable> vars_;
};

// t f(u) - sum log s(u), +inf outside the domain.
double barrier(const Program& program, const std::vector<double>& u, double t) {
  double value = t * program.objective(u);
  for (const double s : program.slacks(u)) {
    if (!(s > 0.0)) return kInfinity;
    value -= std::log(s);
  }
  return value;
}

}  // namespace

OptimalAllocation optimal_allocation(const model::MixedModel& mixed, double sigma,
                                     Coupling coupling, double gap_share, const StopToken& stop) {
  OptimalAllocation out;
  const std::size_t m = mixed.clients(), k = mixed.arms();
  out.pulls.assign(m * k, 0.0);
  for (std::size_t n = 0; n < m; ++n) out.pulls[n * k + mixed.optimal_arm(n)] = kInfinity;
  if (sigma == 0.0) return out;  // every mean is known from one sample
  const Program program(mixed, sigma, coupling);
  if (program.size() == 0) return out;
  const auto& vars = program.variables();
  if (std::any_of(vars.begin(), vars.end(), [](const Variable& v) { return !(v.cost > 0.0); })) {
    out.constant = kInfinity;  // a tie: no finite exploration tells the arms apart
    return out;
  }

  auto u = program.start();
  const double constraints = static_cast<double>(program.size());
  double t = constraints / program.objective(u);
  // The last point centred to the Newton tolerance, and its t: its duality
  // gap is about N / t. Past some t the Newton steps lose their precision
  // (the tight constraints' slacks near 1e-10 of their room); t is then
  // raised from the last centred point by smaller factors, and the solver
  // stops when even a 1.1-fold raise fails, at the last centred point,
  // whose gap the dual certifies.
  auto centred = u;
  double centred_t = t;
  constexpr double kDecrement = 1e-7;
  constexpr unsigned kMaxSteps = 100;  // per centring; far above the ~10 it takes
  for (double raise = 20.0; raise >= 1.1;) {
    bool converged = false;
    for (unsigned step = 0; step < kMaxSteps && !converged; ++step) {
      stop.throw_if_requested();
      const auto [dx, slope] = program.newton_step(u, program.slacks(u), t);
      ++out.newton_steps;
      if (-slope / 2.0 <= kDecrement) {         // the Newton decrement
        converged = slope <= 2.0 * kDecrement;  // a descent direction, or rounding
        break;
      }
      const double before = barrier(program, u, t);
      std::vector<double> next(u.size());
      bool moved = false;
      for (double a = 1.0; a > 1e-12 && !moved; a *= 0.5) {
        for (std::size_t i = 0; i < u.size(); ++i) next[i] = u[i] + a * dx[i];
        moved = std::all_of(next.begin(), next.end(), [](double x) { return x > 0.0; }) &&
                barrier(program, next, t) <= before + 0.25 * a * slope;
      }
      if (!moved) break;
      u.swap(next);
    }
    if (converged) {
      centred = u;
      centred_t = t;
      if (constraints / t <= gap_share * program.objective(u)) break;
    } else {
      u = centred;
      raise = std::sqrt(raise);
    }
    t = centred_t * raise;
  }
  u = centred;
  t = centred_t;

  const double f = program.objective(u);
  const auto s = program.slacks(u);
  std::vector<double> y(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) y[i] = 1.0 / (t * s[i]);
  out.gap = std::max(0.0, (f - program.dual(y)) / f);
  out.constant = program.constant(f);
  for (std::size_t i = 0; i < vars.size(); ++i) {
    out.pulls[vars[i].client * k + vars[i].arm] = program.pulls(u[i]);
  }
  return out;
}

}  // namespace pfmab::theory
