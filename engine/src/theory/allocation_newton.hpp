#pragma once

// The Newton system of the C* solver (docs/allocation.md, "Each Newton
// step"): for a diagonal D (the objective's curvature) and weights theta >= 0
// (the constraints'), solves
//
//   (D + A^T diag(theta) A) du = -g
//
// for the program's A = e I + c0 P G in O(N + K L^2 + L^3), L the number of
// coupled arms (AllocationProgram::coupled_arms, at most min(M, K)): the sums
// U = G u are unknowns of their own, tied to u by multipliers nu, so that u
// is eliminated variable by variable; each arm that is no client's best is
// then eliminated by a 2 x 2 pivot, as it couples only with the sums of best
// arms; what is left is a dense 2L x 2L system, equilibrated and solved by QR
// with column pivoting.
#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "pfmab/util/stop_token.hpp"

#include "allocation_program.hpp"
#include "qr_solve.hpp"

namespace pfmab::theory {

class NewtonSystem {
 public:
  explicit NewtonSystem(const AllocationProgram& program);
  // Sized and laid out anew for the program, which assign() changed, in the
  // same storage.
  void reset();

  // Factors the system at `curvature` (D) and `weight` (theta), both > 0.
  // Polls `stop` while it eliminates arms.
  void factor(std::span<const double> curvature, std::span<const double> weight,
              const StopToken& stop);
  // du = -(D + A^T theta A)^-1 g, with the last factorisation. (Not const:
  // it works in the system's own buffers, allocating nothing.)
  void solve(std::span<const double> gradient, std::span<double> du);

 private:
  const AllocationProgram& program_;
  std::size_t slots_;                                // L
  std::vector<std::vector<std::uint32_t>> touches_;  // each arm's slots of best arms
  std::vector<std::uint8_t> seen_;                   // reset()'s, arms x L
  std::vector<std::uint32_t> slot_of_;               // each arm's slot, or kUncoupled
  // per variable i: h_i = D_i + theta_i e^2, a_i = theta_i e c0 / h_i,
  // sigma_i = theta_i c0^2 D_i / h_i
  std::vector<double> h_, a_, sigma_;
  // per arm x: the tie's T_x = sum 1 / h_i, C_xx = 1 + sum a_i, S_xx (the
  // sums' stiffness), and, by slot j of best arm b, C_bx and S_xb; Delta_x =
  // S_xx T_x + C_xx^2 for the arms eliminated by a 2 x 2 pivot
  std::vector<double> tie_, cross_, stiffness_, delta_;
  std::vector<double> cross_by_slot_, stiffness_by_slot_;  // arm-major, arms x L
  Eigen::MatrixXd reduced_;
  Eigen::VectorXd equilibration_;
  ReducedQr qr_;  // (qr_solve.hpp)

  // solve()'s buffers: per arm, E1's and -E2's right sides and the solved
  // dU and nu; the reduced system's right side, solution, a residual and a
  // right side the QR solves in place (qr_solve.hpp)
  std::vector<double> r1_, r2_, d_sum_, nu_;
  Eigen::VectorXd rhs_, solution_, residual_, work_;
};

}  // namespace pfmab::theory
