#pragma once

// ColPivHouseholderQR::solve for one right-hand side, as the Newton system's
// reduced solve calls it six times per Newton step (allocation_newton.cpp).
// Eigen's route goes through its general matrix-product dispatch and
// evaluates tau times each reflector into a heap temporary: on pf-alloc's
// 4 x 9 game, whose reduced systems are 8 x 8, that was a quarter of a
// replication's instructions. These are loops doing the operations of
// Eigen 3.4's code, in its order and (for the dot products) through the
// same expression types, so the same bits: tests/unit/theory/qr_solve_test.cpp
// compares them with Eigen's bit for bit.
#include <Eigen/Dense>

namespace pfmab::theory {

// v = Q^T v, Q the product of the first `length` reflectors of `qr`: Eigen's
// HouseholderSequence::applyThisOnTheLeft (unblocked, as for any
// one-column destination) and MatrixBase::applyHouseholderOnTheLeft.
inline void apply_qr_transpose(const Eigen::ColPivHouseholderQR<Eigen::MatrixXd>& qr,
                               Eigen::Index length, Eigen::VectorXd& v) {
  const Eigen::MatrixXd& vectors = qr.matrixQR();
  const Eigen::Index rows = vectors.rows();
  for (Eigen::Index k = 0; k < length; ++k) {
    const double tau = qr.hCoeffs().coeff(k);
    // Eigen's sub_dst and, inside applyHouseholderOnTheLeft, its `bottom`
    using Rows = Eigen::Block<Eigen::VectorXd, Eigen::Dynamic, Eigen::Dynamic>;
    Rows dst = v.bottomRightCorner(rows - k, v.cols());
    if (dst.rows() == 1) {
      dst *= 1.0 - tau;
      continue;
    }
    if (tau == 0.0) continue;
    const Eigen::Block<const Eigen::MatrixXd, Eigen::Dynamic, 1> essential(vectors, k + 1, k,
                                                                           rows - k - 1, 1);
    const Eigen::Block<Rows, Eigen::Dynamic, Eigen::Dynamic> bottom(dst, 1, 0, dst.rows() - 1,
                                                                    dst.cols());
    // tmp = essential^T bottom: Eigen's product falls back to this dot for
    // a 1 x 1 result, added to the zeroed tmp with alpha = 1
    const auto lhs = essential.adjoint();
    double tmp = 0.0;
    tmp += 1.0 * lhs.row(0).conjugate().dot(bottom.col(0));
    tmp += dst.coeff(0, 0);
    dst.coeffRef(0, 0) -= tau * tmp;
    // bottom -= (tau essential) tmp, the outer product column by column
    for (Eigen::Index i = 0; i < bottom.rows(); ++i) {
      dst.coeffRef(i + 1, 0) -= tmp * (tau * essential.coeff(i));
    }
  }
}

// x = R^-1 x for the upper triangle R of the top-left `size` x `size` of
// `r`: Eigen's triangular_solve_vector (column-major, upper), whose panels
// are 8 wide: up to 8 unknowns it is this back substitution; larger
// systems go to Eigen (a matrix-vector product joins its panels).
inline void solve_upper_in_place(const Eigen::MatrixXd& r, Eigen::Index size, Eigen::VectorXd& x) {
  constexpr Eigen::Index kPanelWidth = 8;  // EIGEN_TUNE_TRIANGULAR_PANEL_WIDTH
  if (size > kPanelWidth) {
    r.topLeftCorner(size, size).triangularView<Eigen::Upper>().solveInPlace(x.topRows(size));
    return;
  }
  for (Eigen::Index k = 0; k < size; ++k) {
    const Eigen::Index i = size - k - 1;
    if (!(x(i) != 0.0)) continue;  // numext::not_equal_strict
    x(i) /= r(i, i);
    for (Eigen::Index j = 0; j < i; ++j) x(j) -= x(i) * r(j, i);
  }
}

// dst = (QR)^-1 rhs, with `work` holding rhs and overwritten: Eigen's
// ColPivHouseholderQR::_solve_impl.
inline void qr_solve_in_place(const Eigen::ColPivHouseholderQR<Eigen::MatrixXd>& qr,
                              Eigen::VectorXd& work, Eigen::VectorXd& dst) {
  const Eigen::Index pivots = qr.nonzeroPivots();
  if (pivots == 0) {
    dst.setZero();
    return;
  }
  apply_qr_transpose(qr, pivots, work);
  solve_upper_in_place(qr.matrixQR(), pivots, work);
  const auto& order = qr.colsPermutation().indices();
  for (Eigen::Index i = 0; i < pivots; ++i) dst(order(i)) = work(i);
  for (Eigen::Index i = pivots; i < qr.cols(); ++i) dst(order(i)) = 0.0;
}

}  // namespace pfmab::theory
