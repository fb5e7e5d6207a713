// The elimination, from the Newton step's stationarity (docs/allocation.md,
// "Each Newton step"), with q_i = dU_{k_i} + dU_{b_i} (b_i the best arm of
// variable i's client; the term is absent where the constraint is uncoupled):
//
//   du_i = -(g_i + nu_{k_i}) / h_i - a_i q_i,
//   (E1_x)  sum_{i: x in {k_i, b_i}} (sigma_i q_i - a_i nu_{k_i}) - nu_x
//               = sum_{i: x in {k_i, b_i}} a_i g_i,
//   (E2_x)  T_x nu_x + C_xx dU_x + sum_{i: k_i = x} a_i dU_{b_i}
//               = -sum_{i: k_i = x} g_i / h_i,
//
// E1 from the sums' stationarity, E2 from the tie dU_x = sum_{k_i = x} du_i.
// In the unknowns (dU, nu), with E1 and -E2 as rows, the system is the
// quasi-definite [[S, -C], [-C^T, -T]]: S >= 0 the sums' stiffness, T > 0
// diagonal. An arm x that is no client's best appears in E1 and E2 of itself
// and, through dU_x and nu_x, in E1 of the best arms it shares a constraint
// with: it is eliminated by its own 2 x 2 block, whose determinant
// -(S_xx T_x + C_xx^2) is a sum of terms of one sign.
#include "allocation_newton.hpp"

#include <algorithm>
#include <cmath>

namespace pfmab::theory {

namespace {
constexpr std::uint32_t kUncoupled = AllocationProgram::kUncoupled;
// The largest reduced system ReducedQr::factor factors (see factor()).
constexpr Eigen::Index kLoopedQr = 16;
}  // namespace

NewtonSystem::NewtonSystem(const AllocationProgram& program) : program_(program) { reset(); }

void NewtonSystem::reset() {
  const AllocationProgram& program = program_;
  const std::size_t arms = program.arms(), size = program.size();
  slots_ = program.coupled_arms().size();
  touches_.resize(arms);
  for (auto& slots : touches_) slots.clear();
  slot_of_.assign(arms, kUncoupled);
  for (auto* v : {&h_, &a_, &sigma_}) v->resize(size);
  for (auto* v : {&tie_, &cross_, &stiffness_, &delta_, &r1_, &r2_, &d_sum_, &nu_}) {
    v->resize(arms);
  }
  cross_by_slot_.resize(arms * slots_);
  stiffness_by_slot_.resize(arms * slots_);
  for (auto* v : {&rhs_, &solution_, &residual_, &work_}) {
    v->resize(static_cast<Eigen::Index>(2 * slots_));
  }
  for (std::size_t j = 0; j < slots_; ++j) {
    slot_of_[program.coupled_arms()[j]] = static_cast<std::uint32_t>(j);
  }
  seen_.assign(arms * slots_, 0);
  for (const auto& v : program.variables()) {
    if (v.slot == kUncoupled || seen_[v.arm * slots_ + v.slot] != 0) continue;
    seen_[v.arm * slots_ + v.slot] = 1;
    touches_[v.arm].push_back(v.slot);
  }
}

void NewtonSystem::factor(std::span<const double> curvature, std::span<const double> weight,
                          const StopToken& stop) {
  const double e = program_.own(), c0 = program_.shared();
  const auto& vars = program_.variables();
  std::fill(tie_.begin(), tie_.end(), 0.0);
  std::fill(cross_.begin(), cross_.end(), 1.0);
  std::fill(stiffness_.begin(), stiffness_.end(), 0.0);
  std::fill(cross_by_slot_.begin(), cross_by_slot_.end(), 0.0);
  std::fill(stiffness_by_slot_.begin(), stiffness_by_slot_.end(), 0.0);
  for (std::size_t i = 0; i < vars.size(); ++i) {
    const auto& v = vars[i];
    const double theta = weight[i], d = curvature[i];
    const double h = d + theta * e * e;
    h_[i] = h;
    a_[i] = theta * e * c0 / h;
    sigma_[i] = theta * c0 * c0 * (d / h);
    tie_[v.arm] += 1.0 / h;
    cross_[v.arm] += a_[i];
    stiffness_[v.arm] += sigma_[i];
    if (v.slot == kUncoupled) continue;
    stiffness_[v.best] += sigma_[i];
    cross_by_slot_[v.arm * slots_ + v.slot] += a_[i];
    stiffness_by_slot_[v.arm * slots_ + v.slot] += sigma_[i];
  }

  // Rows and columns j < L: dU of the j-th best arm (E1); L + j: its nu (-E2).
  const auto l = static_cast<Eigen::Index>(slots_);
  reduced_.setZero(2 * l, 2 * l);
  for (std::size_t x = 0; x < program_.arms(); ++x) {
    if (x % 64 == 0) stop.throw_if_requested();
    if (!program_.paid(x)) continue;
    // (data() + offset: with no coupled arm the rows are empty)
    const double* c = cross_by_slot_.data() + x * slots_;
    const double* p = stiffness_by_slot_.data() + x * slots_;
    if (const auto j = static_cast<Eigen::Index>(slot_of_[x]); slot_of_[x] != kUncoupled) {
      reduced_(j, j) += stiffness_[x];
      reduced_(j, l + j) -= cross_[x];
      reduced_(l + j, j) -= cross_[x];
      reduced_(l + j, l + j) -= tie_[x];
      for (const auto k : touches_[x]) {
        reduced_(j, k) += p[k];
        reduced_(k, j) += p[k];
        reduced_(k, l + j) -= c[k];
        reduced_(l + j, k) -= c[k];
      }
      continue;
    }
    // the Schur complement of x's block [[S, -C], [-C, -T]] on the dU of
    // the best arms, through x's couplings w_j = (p_j, -c_j)
    const double t = tie_[x], cx = cross_[x], s = stiffness_[x];
    delta_[x] = s * t + cx * cx;
    for (const auto j : touches_[x]) {
      for (const auto k : touches_[x]) {
        reduced_(j, k) -=
            (t * p[j] * p[k] + cx * (p[j] * c[k] + c[j] * p[k]) - s * c[j] * c[k]) / delta_[x];
      }
    }
  }
  if (l == 0) return;
  // Its entries differ in scale by many orders (a tight constraint's weight
  // against another arm's 1 / h): equilibrated, then QR with column pivoting
  // (an LU lost the step near alpha = 0, where nu and dU of an arm nearly
  // cancel).
  equilibration_.resize(2 * l);
  for (Eigen::Index j = 0; j < 2 * l; ++j) {
    const double d = std::abs(reduced_(j, j));
    equilibration_(j) = d > 0.0 ? 1.0 / std::sqrt(d) : 1.0;
  }
  // ReducedQr::factor's loops beat Eigen's dispatch on small systems (the
  // synthetic game's are 8 x 8), Eigen's vectorised kernels win on large
  // ones (100 x 100 at 200 x 50); both give the same bits.
  const auto equilibrated = equilibration_.asDiagonal() * reduced_ * equilibration_.asDiagonal();
  if (2 * l <= kLoopedQr) {
    qr_.factor(equilibrated);
  } else {
    qr_.compute(equilibrated);
  }
}

void NewtonSystem::solve(std::span<const double> gradient, std::span<double> du) {
  const auto& vars = program_.variables();
  const std::size_t arms = program_.arms();
  std::vector<double>& r1 = r1_;  // E1's right side
  std::vector<double>& r2 = r2_;  // -E2's
  std::fill(r1.begin(), r1.end(), 0.0);
  std::fill(r2.begin(), r2.end(), 0.0);
  for (std::size_t i = 0; i < vars.size(); ++i) {
    const auto& v = vars[i];
    const double pull = a_[i] * gradient[i];
    r1[v.arm] += pull;
    if (v.slot != kUncoupled) r1[v.best] += pull;
    r2[v.arm] += gradient[i] / h_[i];
  }

  const auto l = static_cast<Eigen::Index>(slots_);
  Eigen::VectorXd& rhs = rhs_;
  for (Eigen::Index j = 0; j < l; ++j) {
    const auto b = program_.coupled_arms()[static_cast<std::size_t>(j)];
    rhs(j) = r1[b];
    rhs(l + j) = r2[b];
  }
  for (std::size_t x = 0; x < arms; ++x) {
    if (!program_.paid(x) || slot_of_[x] != kUncoupled) continue;
    const double t = tie_[x], cx = cross_[x], s = stiffness_[x];
    const double first = (t * r1[x] - cx * r2[x]) / delta_[x];
    const double second = (-cx * r1[x] - s * r2[x]) / delta_[x];
    for (const auto j : touches_[x]) {
      rhs(j) -=
          stiffness_by_slot_[x * slots_ + j] * first - cross_by_slot_[x * slots_ + j] * second;
    }
  }
  // solution = q (QR)^-1 q rhs, then two rounds of iterative refinement
  Eigen::VectorXd& solution = solution_;
  solution.setZero();
  if (l > 0) {
    const auto& q = equilibration_;
    work_ = q.asDiagonal() * rhs;
    qr_solve_in_place(qr_, work_, solution);
    solution = q.asDiagonal() * solution;
    for (int round = 0; round < 2; ++round) {
      residual_.noalias() = reduced_ * solution;
      work_ = q.asDiagonal() * (rhs - residual_);
      qr_solve_in_place(qr_, work_, residual_);
      solution += q.asDiagonal() * residual_;
    }
  }

  // dU and nu of every arm: the best arms' from the dense solve, the others'
  // from their 2 x 2 blocks
  std::vector<double>& d_sum = d_sum_;
  std::vector<double>& nu = nu_;
  std::fill(d_sum.begin(), d_sum.end(), 0.0);
  std::fill(nu.begin(), nu.end(), 0.0);
  for (std::size_t x = 0; x < arms; ++x) {
    if (!program_.paid(x)) continue;
    if (const auto j = slot_of_[x]; j != kUncoupled) {
      d_sum[x] = solution(j);
      nu[x] = solution(l + j);
      continue;
    }
    double z1 = r1[x], z2 = r2[x];
    for (const auto j : touches_[x]) {
      z1 -= stiffness_by_slot_[x * slots_ + j] * solution(j);
      z2 += cross_by_slot_[x * slots_ + j] * solution(j);
    }
    const double t = tie_[x], cx = cross_[x], s = stiffness_[x];
    d_sum[x] = (t * z1 - cx * z2) / delta_[x];
    nu[x] = (-cx * z1 - s * z2) / delta_[x];
  }
  for (std::size_t i = 0; i < vars.size(); ++i) {
    const auto& v = vars[i];
    const double q = d_sum[v.arm] + (v.slot != kUncoupled ? d_sum[v.best] : 0.0);
    du[i] = -(gradient[i] + nu[v.arm]) / h_[i] - a_[i] * q;
  }
}

}  // namespace pfmab::theory
