// theory/qr_solve.hpp: ColPivHouseholderQR's factorisation and its solve
// for one right side, in loops instead of Eigen's product dispatch, give
// Eigen's bits: on random systems of 1 to 41 unknowns (the reduced Newton
// systems are 2 L x 2 L, L <= min(M, K)), entries over nine orders of
// magnitude, rank-deficient and zero matrices, right sides with zeros.
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

// ReducedQr::factor against ColPivHouseholderQR::compute on the same kind
// of matrices, equilibrated as the Newton system's are: the same factors,
// Householder coefficients, pivots, rank and largest pivot, bit for bit
// (one ReducedQr reused across sizes, as a solver reuses it).
TEST(QrSolve, FactorsWithEigensBits) {
  std::mt19937_64 rng(2);
  std::normal_distribution<double> normal;
  theory::ReducedQr reduced;
  for (int trial = 0; trial < 3000; ++trial) {
    const int n = 1 + trial % 41;
    SCOPED_TRACE("trial " + std::to_string(trial) + ", " + std::to_string(n) + " unknowns");
    Eigen::MatrixXd a(n, n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        a(i, j) = normal(rng) * std::pow(10.0, static_cast<int>(rng() % 9) - 4);
      }
    }
    if (trial % 7 == 0 && n > 2) a.col(1) = 2.0 * a.col(0);
    if (trial % 11 == 0) a.setZero();
    if (trial % 13 == 0) a.row(0).setZero();
    Eigen::VectorXd q(n);
    for (int i = 0; i < n; ++i) q(i) = 1.0 / std::sqrt(1.0 + std::abs(normal(rng)));
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> eigen(q.asDiagonal() * a * q.asDiagonal());
    reduced.factor(q.asDiagonal() * a * q.asDiagonal());
    EXPECT_EQ(std::memcmp(eigen.matrixQR().data(), reduced.matrixQR().data(),
                          sizeof(double) * static_cast<std::size_t>(n * n)),
              0);
    EXPECT_EQ(std::memcmp(eigen.hCoeffs().data(), reduced.hCoeffs().data(), sizeof(double) * n), 0);
    EXPECT_EQ(eigen.colsPermutation().indices(), reduced.colsPermutation().indices());
    EXPECT_EQ(eigen.nonzeroPivots(), reduced.nonzeroPivots());
    EXPECT_EQ(eigen.maxPivot(), reduced.maxPivot());
  }
}

}  // namespace
}  // namespace pfmab::testing
