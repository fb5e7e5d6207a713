#pragma once

// The program whose optimum is C* (docs/allocation.md, "The program"), in the
// solver's units:
//
//   minimise  f(u) = sum_i c_i / u_i  over u > 0, one u_i = 1 / x_{k,n} for
//             each client n and arm k other than its best (c_i = D'_{k,n}),
//   subject to, for each such i = (k, n):
//     s_i(u) = r_i - e u_i - c0 (U_k + U_{k*_n}) >= 0,   r_i = D'_{k,n}^2 / (2 sigma^2),
//
// where U_k sums u over the variables of arm k, c0 = ((1 - alpha) / M)^2 is
// the weight squared of another client's sample and c0 + e = (alpha +
// (1 - alpha) / M)^2 that of a client's own. In matrix form s = r - A u with
// A = e I + c0 P G: G sums the variables by arm (K x N) and P gives each
// constraint its two arms (N x K). The separable program drops U_{k*_n}.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "pfmab/model/mixed_model.hpp"
#include "pfmab/theory/allocation.hpp"

namespace pfmab::theory {

class AllocationProgram {
 public:
  static constexpr std::uint32_t kUncoupled = UINT32_MAX;

  // One variable: u = 1 / x of client `client` for arm `arm`, not its best.
  struct Variable {
    std::uint32_t client, arm, best;  // best: the client's mixed-optimal arm
    // the index of `best` among coupled_arms(), or kUncoupled where the
    // constraint holds no U_{best} (separable, or no client pays for `best`)
    std::uint32_t slot;
    double cost;  // c_i: D'_{arm, client}, in the solver's units
    double room;  // r_i: D'^2 / (2 sigma^2), in the solver's units
  };

  // `tied` (optimal_allocation's): arms that have no variable beside each
  // client's best.
  AllocationProgram(const model::MixedModel& mixed, double sigma, Coupling coupling,
                    std::span<const std::uint8_t> tied = {});
  AllocationProgram() = default;  // empty, until assign()
  // The program of these arguments in place of this one, in the same
  // storage (AllocationSolver's: nothing allocated once the sizes settle).
  void assign(const model::MixedModel& mixed, double sigma, Coupling coupling,
              std::span<const std::uint8_t> tied = {});

  std::size_t size() const { return vars_.size(); }
  std::size_t arms() const { return arms_; }
  const std::vector<Variable>& variables() const { return vars_; }
  double own() const { return own_; }
  double shared() const { return shared_; }
  // The arms that some constraint holds as its client's best arm, and that
  // some client pays to pull (U_best is not always 0): the only arms that
  // couple constraints of different arms.
  const std::vector<std::uint32_t>& coupled_arms() const { return coupled_arms_; }
  // Whether some variable is of arm k (U_k can move).
  bool paid(std::size_t arm) const { return paid_[arm]; }

  // C* from the objective in the program's units, x = 1 / u from u, and u
  // from x (the gaps unscaled: a cost scales as 2^scale, a room as its square).
  double constant(double objective) const;
  double pulls(double u) const;
  double from_pulls(double x) const;

  double objective(std::span<const double> u) const;
  // s(u), computed from u (negative: violated).
  void slacks(std::span<const double> u, std::span<double> s) const;
  // A v and A^T v. (Their per-arm sums go through a scratch row the
  // program keeps: a program belongs to one solve, on one thread, and a
  // Newton step calls these about ten times.)
  void times(std::span<const double> v, std::span<double> out) const;
  void transpose_times(std::span<const double> v, std::span<double> out) const;

  // A strictly feasible point: each u_i as large as its own room allows, up
  // to an even share of what every constraint on its arm leaves, so that
  // every slack is at least a quarter of its room.
  void start(std::vector<double>& u) const;

  // The dual function at the best multiple of y >= 0: a lower bound on the
  // optimum (docs/allocation.md, "The certificate"), given `weights` = A^T y
  // (which the Newton step needs too).
  double dual_bound(std::span<const double> y, std::span<const double> weights) const;

 private:
  std::size_t arms_ = 0;
  double shared_ = 0.0, own_ = 0.0;
  int scale_ = 0;
  double cost_unit_ = 0.0, room_unit_ = 0.0;
  std::vector<Variable> vars_;
  std::vector<std::uint32_t> coupled_arms_;
  std::vector<bool> paid_;
  std::vector<std::uint32_t> slot_of_;  // assign()'s, per arm
  // times()', transpose_times()' and start()'s scratch, per arm
  mutable std::vector<double> by_arm_, least_;
};

}  // namespace pfmab::theory
