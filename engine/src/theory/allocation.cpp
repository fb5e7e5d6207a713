// C*, the optimum of the allocation program (allocation_program.hpp,
// docs/allocation.md), by a primal-dual interior-point method with Mehrotra's
// predictor-corrector steps. The primal point u is kept strictly feasible,
// its slacks s computed from it; the multipliers y > 0 of the constraints
// move with it. Each iteration factors one Newton system
// (allocation_newton.hpp) and solves it twice:
//
//   (D + A^T diag(y / s) A) du = -(grad f + A^T (z / s)),
//   dy = z / s - y + (y / s) A du,
//
// D = diag(2 c / u^3), first for z = 0 (the affine step, which gives the
// centring sigma = (mu_aff / mu)^3), then for z = sigma mu + (A du_aff) dy_aff
// (Mehrotra's second-order correction of s y). Every y > 0 gives a lower
// bound, the dual function at its best multiple; the solve stops once f(u)
// is within `gap_share` of the best such bound, or when the steps no longer
// raise it (double precision).
#include "pfmab/theory/allocation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "allocation_newton.hpp"
#include "allocation_program.hpp"

namespace pfmab::theory {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Iterations are about 20 to 40; the cap only ends a run that stalls.
constexpr unsigned kMaxIterations = 200;
// Iterations in a row that narrow the gap no further, after which the solve
// ends.
constexpr unsigned kStall = 3;
// The share of f below which the complementarity s^T y is rounding.
constexpr double kRounding = 1e-14;
// Steps stop at this share of the way to the boundary.
constexpr double kToBoundary = 0.99;

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// The largest step a <= 1 / kToBoundary along which x + a dx stays > 0.
double to_boundary(const std::vector<double>& x, const std::vector<double>& dx) {
  double a = 1.0 / kToBoundary;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (dx[i] < 0.0) a = std::min(a, -x[i] / dx[i]);
  }
  return a;
}

// The primal step's limit: u + a du > 0 and s - a (A du) > 0.
double primal_to_boundary(const std::vector<double>& u, const std::vector<double>& du,
                          const std::vector<double>& s, const std::vector<double>& a_du) {
  double a = to_boundary(u, du);
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (a_du[i] > 0.0) a = std::min(a, s[i] / a_du[i]);
  }
  return a;
}

// A warm start (optimal_allocation's doc): the previous pulls, mixed with the
// cold start u as little as keeps every slack positive, and its shares as
// multipliers, each raised to at least mu / s for mu a 1e-2 share of f over
// N (on random games perturbed by 1e-3, the choice of mix and mu that took
// the fewest iterations, a third fewer than cold at a 1e-3 gap).
void warm(const AllocationProgram& program, const OptimalAllocation& previous, std::size_t arms,
          std::vector<double>& u, std::vector<double>& y) {
  const auto& vars = program.variables();
  const std::size_t n = program.size();
  std::vector<double> cold = u, s_cold(n), s_warm(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = previous.pulls[vars[i].client * arms + vars[i].arm];
    if (std::isfinite(x) && x > 0.0) u[i] = program.from_pulls(x);
  }
  program.slacks(cold, s_cold);
  program.slacks(u, s_warm);
  double mix = 0.99;  // of the warm point
  for (std::size_t i = 0; i < n; ++i) {
    if (s_warm[i] < 0.0) mix = std::min(mix, 0.9 * s_cold[i] / (s_cold[i] - s_warm[i]));
  }
  for (std::size_t i = 0; i < n; ++i) u[i] = mix * u[i] + (1.0 - mix) * cold[i];
  std::vector<double> s(n);
  program.slacks(u, s);
  const double f = program.objective(u);
  for (std::size_t i = 0; i < n; ++i) {
    y[i] = previous.shares[vars[i].client * arms + vars[i].arm] * f / vars[i].room;
  }
  const double mu = 1e-2 * f / static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i) y[i] = std::max(y[i], mu / s[i]);
}

}  // namespace

// What a solve works in, kept between solves (AllocationSolver): the
// program, its Newton system, and the iterates' vectors, one per name below.
struct AllocationSolver::Workspace {
  AllocationProgram program;
  NewtonSystem system{program};
  std::vector<double> u, y, s, curvature, weight, gradient, z, w, stationarity, du_aff, a_du_aff,
      dy_aff, du, a_du, dy, next, s_next, best;
};

AllocationSolver::AllocationSolver() : workspace_(std::make_unique<Workspace>()) {}
AllocationSolver::~AllocationSolver() = default;

OptimalAllocation optimal_allocation(const model::MixedModel& mixed, double sigma,
                                     Coupling coupling, double gap_share, const StopToken& stop,
                                     const OptimalAllocation* warm_start,
                                     std::span<const std::uint8_t> tied) {
  OptimalAllocation out;
  AllocationSolver().solve(mixed, sigma, coupling, gap_share, stop, warm_start, tied, out);
  return out;
}

void AllocationSolver::solve(const model::MixedModel& mixed, double sigma, Coupling coupling,
                             double gap_share, const StopToken& stop,
                             const OptimalAllocation* warm_start,
                             std::span<const std::uint8_t> tied, OptimalAllocation& out) {
  out.constant = 0.0;
  out.gap = 0.0;
  out.newton_steps = 0;
  const std::size_t m = mixed.clients(), k = mixed.arms();
  out.pulls.assign(m * k, 0.0);
  out.shares.assign(m * k, 0.0);
  for (std::size_t c = 0; c < m; ++c) out.pulls[c * k + mixed.optimal_arm(c)] = kInfinity;
  for (std::size_t i = 0; i < tied.size(); ++i) {
    if (tied[i] != 0) out.pulls[i] = kInfinity;
  }
  if (sigma == 0.0) return;  // every mean is known from one sample
  Workspace& work = *workspace_;
  AllocationProgram& program = work.program;
  program.assign(mixed, sigma, coupling, tied);
  if (program.size() == 0) return;
  const auto& vars = program.variables();
  if (std::any_of(vars.begin(), vars.end(),
                  [](const AllocationProgram::Variable& v) { return !(v.cost > 0.0); })) {
    out.constant = kInfinity;  // a tie: no finite exploration tells the arms apart
    return;
  }

  const std::size_t n = program.size();
  const double count = static_cast<double>(n);
  std::vector<double>&u = work.u, &y = work.y, &s = work.s;
  program.start(u);
  y.resize(n);
  s.resize(n);
  program.slacks(u, s);
  // centred multipliers whose complementarity s^T y is f
  const double mu_start = program.objective(u) / count;
  for (std::size_t i = 0; i < n; ++i) y[i] = mu_start / s[i];
  if (warm_start && warm_start->pulls.size() == m * k && warm_start->shares.size() == m * k) {
    warm(program, *warm_start, k, u, y);
    program.slacks(u, s);
  }

  NewtonSystem& system = work.system;
  system.reset();
  std::vector<double>&curvature = work.curvature, &weight = work.weight, &gradient = work.gradient,
  &z = work.z, &w = work.w, &stationarity = work.stationarity, &du_aff = work.du_aff,
  &a_du_aff = work.a_du_aff, &dy_aff = work.dy_aff, &du = work.du, &a_du = work.a_du, &dy = work.dy,
  &next = work.next, &s_next = work.s_next;
  for (auto* v : {&curvature, &weight, &gradient, &z, &w, &stationarity, &du_aff, &a_du_aff,
                  &dy_aff, &du, &a_du, &dy, &next, &s_next}) {
    v->resize(n);
  }
  double lower = 0.0, f = program.objective(u);
  // The iterates are all feasible: the result is the best of them.
  std::vector<double>& best = work.best;
  best = u;
  double best_f = f;
  unsigned stalled = 0;
  double last_gap = kInfinity;
  while (out.newton_steps < kMaxIterations) {
    stop.throw_if_requested();
    if (f < best_f) {
      best_f = f;
      best = u;
    }
    // w = A^T y: the dual bound's and this step's
    program.transpose_times(y, w);
    lower = std::max(lower, program.dual_bound(y, w));
    const double gap = best_f - lower;
    if (gap <= gap_share * best_f) break;
    stalled = gap < last_gap ? 0 : stalled + 1;
    if (stalled >= kStall) break;
    last_gap = std::min(last_gap, gap);

    const double mu = dot(s, y) / count;
    // complementarity at rounding level: no step can raise the bound
    if (mu * count <= kRounding * f) break;
    for (std::size_t i = 0; i < n; ++i) {
      curvature[i] = 2.0 * w[i] / u[i];
      weight[i] = y[i] / s[i];
      stationarity[i] = w[i] - 2.0 * std::sqrt(vars[i].cost * w[i]) / u[i];
    }
    system.factor(curvature, weight, stop);
    ++out.newton_steps;

    // the affine step (z = 0) and the centring it calls for
    system.solve(stationarity, du_aff);
    program.times(du_aff, a_du_aff);
    for (std::size_t i = 0; i < n; ++i) dy_aff[i] = -y[i] + weight[i] * a_du_aff[i];
    const double primal_aff = std::min(1.0, primal_to_boundary(u, du_aff, s, a_du_aff));
    const double dual_aff = std::min(1.0, to_boundary(y, dy_aff));
    double mu_aff = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      mu_aff += (s[i] - primal_aff * a_du_aff[i]) * (y[i] + dual_aff * dy_aff[i]);
    }
    const double centring = std::clamp(std::pow(mu_aff / count / mu, 3.0), 0.0, 1.0);

    // the corrected step
    stop.throw_if_requested();
    for (std::size_t i = 0; i < n; ++i) {
      z[i] = (centring * mu + a_du_aff[i] * dy_aff[i]) / s[i];
    }
    program.transpose_times(z, gradient);
    for (std::size_t i = 0; i < n; ++i) gradient[i] += stationarity[i];
    system.solve(gradient, du);
    program.times(du, a_du);
    for (std::size_t i = 0; i < n; ++i) dy[i] = z[i] - y[i] + weight[i] * a_du[i];

    // Slacks recomputed from the new point may round below what the step
    // predicted: the step is halved until they are positive.
    const auto positive = [](const std::vector<double>& v) {
      return std::all_of(v.begin(), v.end(), [](double x) { return x > 0.0; });
    };
    bool inside = false;
    for (double primal = std::min(1.0, kToBoundary * primal_to_boundary(u, du, s, a_du));
         !inside && primal >= 1e-12; primal *= 0.5) {
      for (std::size_t i = 0; i < n; ++i) next[i] = u[i] + primal * du[i];
      program.slacks(next, s_next);
      inside = positive(next) && positive(s_next);
    }
    if (!inside) break;
    const double dual = std::min(1.0, kToBoundary * to_boundary(y, dy));
    u.swap(next);
    s.swap(s_next);
    for (std::size_t i = 0; i < n; ++i) y[i] += dual * dy[i];
    f = program.objective(u);
  }
  if (f < best_f) {
    best_f = f;
    best = u;
  }
  f = best_f;
  u.swap(best);
  program.transpose_times(y, w);
  lower = std::max(lower, program.dual_bound(y, w));

  out.gap = std::max(0.0, (f - lower) / f);
  out.constant = program.constant(f);
  double total = 0.0;
  for (std::size_t i = 0; i < n; ++i) total += y[i] * vars[i].room;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t at = vars[i].client * k + vars[i].arm;
    out.pulls[at] = program.pulls(u[i]);
    out.shares[at] = y[i] * vars[i].room / total;
  }
}

}  // namespace pfmab::theory
