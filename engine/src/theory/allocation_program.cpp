#include "allocation_program.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pfmab::theory {

AllocationProgram::AllocationProgram(const model::MixedModel& mixed, double sigma,
                                     Coupling coupling, std::span<const std::uint8_t> tied) {
  assign(mixed, sigma, coupling, tied);
}

void AllocationProgram::assign(const model::MixedModel& mixed, double sigma, Coupling coupling,
                               std::span<const std::uint8_t> tied) {
  arms_ = mixed.arms();
  paid_.assign(arms_, false);
  by_arm_.assign(arms_, 0.0);
  vars_.clear();
  coupled_arms_.clear();
  cost_unit_ = 0.0;
  room_unit_ = 0.0;
  const auto variable = [&](std::size_t n, std::size_t k) {
    return k != mixed.optimal_arm(n) && (tied.empty() || tied[n * arms_ + k] == 0);
  };
  const double m = static_cast<double>(mixed.clients());
  const double other = (1.0 - mixed.alpha()) / m;
  shared_ = other * other;
  own_ = (mixed.alpha() + other) * (mixed.alpha() + other) - shared_;
  double largest = 0.0;
  for (std::size_t n = 0; n < mixed.clients(); ++n) {
    for (std::size_t k = 0; k < arms_; ++k) {
      if (variable(n, k)) largest = std::max(largest, mixed.gap(n, k));
    }
  }
  // The gaps times 2^scale_, largest in [1, 2): exact, and D'^2 no longer
  // underflows for gaps below 1e-154, whose C* is finite (the units below
  // undo it exactly, so the result is the same bits as unscaled).
  scale_ = largest > 0.0 ? -std::ilogb(largest) : 0;
  for (std::size_t n = 0; n < mixed.clients(); ++n) {
    const auto best = static_cast<std::uint32_t>(mixed.optimal_arm(n));
    for (std::size_t k = 0; k < arms_; ++k) {
      if (!variable(n, k)) continue;
      const double gap = std::ldexp(mixed.gap(n, k), scale_);
      vars_.push_back({static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(k), best,
                       kUncoupled, gap, gap * gap / (2.0 * sigma * sigma)});
      paid_[k] = true;
    }
  }
  // Solved in units where the largest cost and room are 1 (u = room_unit
  // v), so that the solver's numbers, and where double precision ends, do
  // not depend on sigma or the means' scale.
  for (const auto& v : vars_) {
    cost_unit_ = std::max(cost_unit_, v.cost);
    room_unit_ = std::max(room_unit_, v.room);
  }
  std::vector<std::uint32_t>& slot_of = slot_of_;
  slot_of.assign(arms_, kUncoupled);
  for (auto& v : vars_) {
    v.cost /= cost_unit_;
    v.room /= room_unit_;
    if (coupling == Coupling::separable || !paid_[v.best]) continue;
    if (slot_of[v.best] == kUncoupled) {
      slot_of[v.best] = static_cast<std::uint32_t>(coupled_arms_.size());
      coupled_arms_.push_back(v.best);
    }
    v.slot = slot_of[v.best];
  }
}

double AllocationProgram::constant(double objective) const {
  return objective * std::ldexp(cost_unit_ / room_unit_, scale_);
}

double AllocationProgram::pulls(double u) const {
  return std::ldexp(1.0 / (u * room_unit_), 2 * scale_);
}

double AllocationProgram::from_pulls(double x) const {
  return std::ldexp(1.0 / (x * room_unit_), 2 * scale_);
}

double AllocationProgram::objective(std::span<const double> u) const {
  double f = 0.0;
  for (std::size_t i = 0; i < size(); ++i) f += vars_[i].cost / u[i];
  return f;
}

void AllocationProgram::times(std::span<const double> v, std::span<double> out) const {
  std::vector<double>& sum = by_arm_;
  std::fill(sum.begin(), sum.end(), 0.0);
  for (std::size_t i = 0; i < size(); ++i) sum[vars_[i].arm] += v[i];
  for (std::size_t i = 0; i < size(); ++i) {
    const auto& x = vars_[i];
    out[i] = own_ * v[i] + shared_ * (sum[x.arm] + (x.slot != kUncoupled ? sum[x.best] : 0.0));
  }
}

void AllocationProgram::slacks(std::span<const double> u, std::span<double> s) const {
  times(u, s);
  for (std::size_t i = 0; i < size(); ++i) s[i] = vars_[i].room - s[i];
}

void AllocationProgram::transpose_times(std::span<const double> v, std::span<double> out) const {
  std::vector<double>& by_arm = by_arm_;
  std::fill(by_arm.begin(), by_arm.end(), 0.0);
  for (std::size_t j = 0; j < size(); ++j) {
    by_arm[vars_[j].arm] += v[j];
    if (vars_[j].slot != kUncoupled) by_arm[vars_[j].best] += v[j];
  }
  for (std::size_t i = 0; i < size(); ++i) out[i] = own_ * v[i] + shared_ * by_arm[vars_[i].arm];
}

void AllocationProgram::start(std::vector<double>& u) const {
  // cap[k]: the share of each of arm k's payers in the least room that a
  // constraint holding U_k has, a quarter of it for each of its two sums
  std::vector<double>& payers = by_arm_;
  std::vector<double>& least = least_;
  payers.assign(arms_, 0.0);
  least.assign(arms_, std::numeric_limits<double>::infinity());
  for (const auto& v : vars_) {
    payers[v.arm] += 1.0;
    least[v.arm] = std::min(least[v.arm], v.room);
    if (v.slot != kUncoupled) least[v.best] = std::min(least[v.best], v.room);
  }
  u.resize(size());
  for (std::size_t i = 0; i < size(); ++i) {
    const auto& v = vars_[i];
    double x = own_ > 0.0 ? v.room / (4.0 * own_) : std::numeric_limits<double>::infinity();
    if (shared_ > 0.0) x = std::min(x, least[v.arm] / (4.0 * shared_ * payers[v.arm]));
    u[i] = x;
  }
}

// At b y the dual function is sqrt(b) P - b Q (P = sum 2 sqrt(c_i (A^T y)_i),
// Q = r^T y), largest at sqrt(b) = P / (2 Q): the bound is P^2 / (4 Q).
double AllocationProgram::dual_bound(std::span<const double> y,
                                     std::span<const double> weights) const {
  double p = 0.0, q = 0.0;
  for (std::size_t i = 0; i < size(); ++i) {
    p += 2.0 * std::sqrt(vars_[i].cost * weights[i]);
    q += y[i] * vars_[i].room;
  }
  return q > 0.0 ? p * p / (4.0 * q) : 0.0;
}

}  // namespace pfmab::theory
