// theory/qr_solve.hpp: ColPivHouseholderQR's solve for one right side, in
// loops instead of Eigen's product dispatch, gives Eigen's bits: on random
// systems of 1 to 40 unknowns (the reduced Newton systems are 2 L x 2 L,
// L <= min(M, K)), entries over nine orders of magnitude, rank-deficient
// and zero matrices, right sides with zeros.
#include "theory/qr_solve.hpp"

#include <cmath>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

namespace pfmab::testing {
namespace {

TEST(QrSolve, GivesEigensBitsForOneRightSide) {
  std::mt19937_64 rng(1);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 3000; ++trial) {
    const int n = 1 + trial % 40;
    SCOPED_TRACE("trial " + std::to_string(trial) + ", " + std::to_string(n) + " unknowns");
    Eigen::MatrixXd a(n, n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        a(i, j) = normal(rng) * std::pow(10.0, static_cast<int>(rng() % 9) - 4);
      }
    }
    if (trial % 7 == 0 && n > 2) a.col(1) = 2.0 * a.col(0);  // rank-deficient
    if (trial % 11 == 0) a.setZero();
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
    Eigen::VectorXd rhs(n);
    for (int i = 0; i < n; ++i) rhs(i) = trial % 5 == 0 && i % 3 == 0 ? 0.0 : normal(rng);
    const Eigen::VectorXd expected = qr.solve(rhs);
    Eigen::VectorXd work = rhs, solution(n);
    theory::qr_solve_in_place(qr, work, solution);
    EXPECT_EQ(std::memcmp(expected.data(), solution.data(), sizeof(double) * n), 0);
  }
}

}  // namespace
}  // namespace pfmab::testing
