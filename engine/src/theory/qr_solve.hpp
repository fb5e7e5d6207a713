#pragma once

// ColPivHouseholderQR's factorisation, and its solve for one right-hand
// side, as the Newton system's reduced system uses them once and six times
// per Newton step (allocation_newton.cpp). Eigen's route applies every
// reflector through its general matrix-product dispatch and evaluates tau
// times the reflector into a heap temporary: on pf-alloc's 4 x 9 game,
// whose reduced systems are 8 x 8, that was 40% of a replication's
// instructions. These are loops doing the operations of Eigen 3.4's code
// (SSE2 packets of two doubles, no FMA: the build's flags) in its order,
// so the same bits:
// tests/unit/theory/qr_solve_test.cpp compares them with Eigen's bit for
// bit, and a change of Eigen or of the flags would show there first.
#include <cmath>
#include <utility>

#include <Eigen/Dense>

namespace pfmab::theory {

// sum a_i b_i, i < n, as Eigen 3.4's dot product of two vector blocks sums
// it (a vectorised reduction over an expression with no direct access, so
// from index 0 whatever the addresses): SSE2 pairs of products in two
// accumulators, (0, 1) + (4, 5) + ... and (2, 3) + (6, 7) + ..., added,
// then a last pair, the lanes added, then the odd last product; fewer than
// two products are summed in order.
inline double eigen_dot(const double* a, const double* b, Eigen::Index n) {
  if (n < 2) return n == 1 ? a[0] * b[0] : 0.0;
  const Eigen::Index end = n / 2 * 2, end2 = n / 4 * 4;
  double p0 = a[0] * b[0], p0b = a[1] * b[1];
  if (end > 2) {
    double p1 = a[2] * b[2], p1b = a[3] * b[3];
    for (Eigen::Index i = 4; i < end2; i += 4) {
      p0 = p0 + a[i] * b[i];
      p0b = p0b + a[i + 1] * b[i + 1];
      p1 = p1 + a[i + 2] * b[i + 2];
      p1b = p1b + a[i + 3] * b[i + 3];
    }
    p0 = p0 + p1;
    p0b = p0b + p1b;
    if (end > end2) {
      p0 = p0 + a[end2] * b[end2];
      p0b = p0b + a[end2 + 1] * b[end2 + 1];
    }
  }
  double sum = p0 + p0b;
  if (end < n) sum = sum + a[end] * b[end];
  return sum;
}

// ColPivHouseholderQR whose factorisation applies each reflector to the
// columns left as loops (factor() below): the same factors, bit for bit,
// as ColPivHouseholderQR::compute, which sends each reflector through the
// general matrix-product dispatch (two heap temporaries per column, and a
// sixth of a replication's instructions on the 4 x 9 game).
class ReducedQr : public Eigen::ColPivHouseholderQR<Eigen::MatrixXd> {
 public:
  // Factors `matrix` (any expression of a square matrix, evaluated into
  // the factorisation's own storage): Eigen 3.4's computeInPlace, with
  // apply_reflector() for its applyHouseholderOnTheLeft.
  template <class Matrix>
  void factor(const Matrix& matrix) {
    m_qr = matrix;
    const Eigen::Index rows = m_qr.rows(), cols = m_qr.cols(), size = m_qr.diagonalSize();
    m_hCoeffs.resize(size);
    m_temp.resize(cols);
    m_colsTranspositions.resize(cols);
    Eigen::Index transpositions = 0;
    m_colNormsUpdated.resize(cols);
    m_colNormsDirect.resize(cols);
    for (Eigen::Index k = 0; k < cols; ++k) {
      m_colNormsDirect.coeffRef(k) = m_qr.col(k).norm();
      m_colNormsUpdated.coeffRef(k) = m_colNormsDirect.coeffRef(k);
    }
    const double epsilon = Eigen::NumTraits<double>::epsilon();
    const double threshold_helper =
        Eigen::numext::abs2(m_colNormsUpdated.maxCoeff() * epsilon) / static_cast<double>(rows);
    const double norm_downdate_threshold = std::sqrt(epsilon);
    m_nonzero_pivots = size;
    m_maxpivot = 0.0;
    for (Eigen::Index k = 0; k < size; ++k) {
      Eigen::Index biggest = 0;
      const double biggest_sq_norm =
          Eigen::numext::abs2(m_colNormsUpdated.tail(cols - k).maxCoeff(&biggest));
      biggest += k;
      if (m_nonzero_pivots == size &&
          biggest_sq_norm < threshold_helper * static_cast<double>(rows - k)) {
        m_nonzero_pivots = k;
      }
      m_colsTranspositions.coeffRef(k) = static_cast<int>(biggest);
      if (k != biggest) {
        m_qr.col(k).swap(m_qr.col(biggest));
        std::swap(m_colNormsUpdated.coeffRef(k), m_colNormsUpdated.coeffRef(biggest));
        std::swap(m_colNormsDirect.coeffRef(k), m_colNormsDirect.coeffRef(biggest));
        ++transpositions;
      }
      double beta = 0.0;
      m_qr.col(k).tail(rows - k).makeHouseholderInPlace(m_hCoeffs.coeffRef(k), beta);
      m_qr.coeffRef(k, k) = beta;
      if (std::abs(beta) > m_maxpivot) m_maxpivot = std::abs(beta);
      apply_reflector(k);
      for (Eigen::Index j = k + 1; j < cols; ++j) {
        if (m_colNormsUpdated.coeffRef(j) != 0.0) {
          double temp = std::abs(m_qr.coeffRef(k, j)) / m_colNormsUpdated.coeffRef(j);
          temp = (1.0 + temp) * (1.0 - temp);
          temp = temp < 0.0 ? 0.0 : temp;
          const double temp2 = temp * Eigen::numext::abs2(m_colNormsUpdated.coeffRef(j) /
                                                          m_colNormsDirect.coeffRef(j));
          if (temp2 <= norm_downdate_threshold) {
            m_colNormsDirect.coeffRef(j) = m_qr.col(j).tail(rows - k - 1).norm();
            m_colNormsUpdated.coeffRef(j) = m_colNormsDirect.coeffRef(j);
          } else {
            m_colNormsUpdated.coeffRef(j) *= std::sqrt(temp);
          }
        }
      }
    }
    m_colsPermutation.setIdentity(static_cast<int>(cols));
    for (int k = 0; k < static_cast<int>(size); ++k) {
      m_colsPermutation.applyTranspositionOnTheRight(k, m_colsTranspositions.coeff(k));
    }
    m_det_pq = (transpositions % 2) ? -1 : 1;
    m_isInitialized = true;
  }

 private:
  // Reflector k (its tau and the essential part below the diagonal) applied
  // to the columns right of k, rows k and below: Eigen's
  // applyHouseholderOnTheLeft, whose tmp = essential^T bottom is, for two
  // columns or more, the row-major matrix-vector kernel (per column: pairs
  // of products summed lane by lane, the lanes added, then the odd last
  // product), and for one column Eigen's dot product (eigen_dot).
  void apply_reflector(Eigen::Index k) {
    const Eigen::Index rows = m_qr.rows() - k, cols = m_qr.cols() - k - 1;
    const double tau = m_hCoeffs.coeff(k);
    if (rows == 1) {
      for (Eigen::Index j = 0; j < cols; ++j) m_qr(k, k + 1 + j) *= 1.0 - tau;
      return;
    }
    if (tau == 0.0) return;
    const double* essential = &m_qr(k + 1, k);  // rows - 1 of them
    double* tmp = &m_temp.coeffRef(k + 1);
    const Eigen::Index n = rows - 1;
    if (cols == 1) {
      tmp[0] = 0.0;
      tmp[0] += 1.0 * eigen_dot(essential, &m_qr(k + 1, k + 1), n);
    } else {
      for (Eigen::Index j = 0; j < cols; ++j) {
        const double* column = &m_qr(k + 1, k + 1 + j);
        double lane0 = 0.0, lane1 = 0.0;
        Eigen::Index i = 0;
        for (; i + 2 <= n; i += 2) {
          lane0 = column[i] * essential[i] + lane0;
          lane1 = column[i + 1] * essential[i + 1] + lane1;
        }
        double sum = lane0 + lane1;
        for (; i < n; ++i) sum += column[i] * essential[i];
        tmp[j] = 0.0;
        tmp[j] += 1.0 * sum;
      }
    }
    for (Eigen::Index j = 0; j < cols; ++j) {
      double* column = &m_qr(k, k + 1 + j);  // row k, then the rows of `bottom`
      tmp[j] += column[0];
      column[0] -= tau * tmp[j];
      for (Eigen::Index i = 0; i < n; ++i) column[i + 1] -= tmp[j] * (tau * essential[i]);
    }
  }
};

// v = Q^T v, Q the product of the first `length` reflectors of `qr`: Eigen's
// HouseholderSequence::applyThisOnTheLeft (unblocked, as for any
// one-column destination) and MatrixBase::applyHouseholderOnTheLeft.
inline void apply_qr_transpose(const Eigen::ColPivHouseholderQR<Eigen::MatrixXd>& qr,
                               Eigen::Index length, Eigen::VectorXd& v) {
  const Eigen::MatrixXd& vectors = qr.matrixQR();
  const Eigen::Index rows = vectors.rows();
  for (Eigen::Index k = 0; k < length; ++k) {
    const double tau = qr.hCoeffs().coeff(k);
    double* x = v.data() + k;  // the rows reflector k acts on
    const Eigen::Index n = rows - k - 1;
    if (n == 0) {
      x[0] *= 1.0 - tau;
      continue;
    }
    if (tau == 0.0) continue;
    const double* essential = &vectors(k + 1, k);
    // tmp = essential^T (rows below k): Eigen's product falls back to its
    // dot for a 1 x 1 result, added to the zeroed tmp with alpha = 1
    double tmp = 0.0;
    tmp += 1.0 * eigen_dot(essential, x + 1, n);
    tmp += x[0];
    x[0] -= tau * tmp;
    for (Eigen::Index i = 0; i < n; ++i) x[i + 1] -= tmp * (tau * essential[i]);
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
