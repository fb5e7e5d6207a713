#pragma once

// Two-sample tests for the statistical tests: do two samples come from the
// same distribution? Kolmogorov-Smirnov for real values, chi-square
// homogeneity for categories. Both use large-sample (asymptotic) p-values,
// which is what a test with thousands of replications per sample needs.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <map>
#include <numbers>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>

namespace pfmab::testing {

// Q_KS(lambda) = P(K > lambda) for the Kolmogorov distribution K (the limit
// law of sqrt(n) sup|F_n - F|): 2 sum_{j>=1} (-1)^{j-1} exp(-2 j^2 lambda^2).
// That series converges slowly for small lambda, so there the equivalent
// theta-function form of the CDF is used instead,
// P(K <= lambda) = sqrt(2 pi) / lambda sum_{j>=1} exp(-(2j-1)^2 pi^2 / (8 lambda^2))
// (Numerical Recipes, 3rd ed., section 6.14, switches at 1.18 likewise).
inline double kolmogorov_survival(double lambda) {
  if (lambda <= 0.0) return 1.0;
  constexpr double pi = std::numbers::pi;
  if (lambda < 1.18) {
    double cdf = 0.0;
    for (int j = 1; j <= 20; ++j) {
      const double odd = 2.0 * j - 1.0;
      cdf += std::exp(-odd * odd * pi * pi / (8.0 * lambda * lambda));
    }
    cdf *= std::sqrt(2.0 * pi) / lambda;
    return std::clamp(1.0 - cdf, 0.0, 1.0);
  }
  double q = 0.0;
  for (int j = 1; j <= 100; ++j) {
    const double term = std::exp(-2.0 * j * j * lambda * lambda);
    q += (j % 2 == 1 ? 2.0 : -2.0) * term;
    if (term < 1e-300) break;
  }
  return std::clamp(q, 0.0, 1.0);
}

struct KsResult {
  double statistic = 0.0;  // D = sup_x |F_a(x) - F_b(x)|
  double p_value = 1.0;
};

// Two-sample Kolmogorov-Smirnov test. D is exact (ties inside and across the
// samples are handled by stepping past each distinct value at once). The
// p-value is Q_KS(lambda) with Stephens' small-sample correction
// lambda = (sqrt(ne) + 0.12 + 0.11 / sqrt(ne)) D, ne = n m / (n + m). For
// samples with ties (discrete laws) this p-value is conservative: under the
// null it rejects at most as often as the stated level, never more.
inline KsResult ks_two_sample(std::vector<double> a, std::vector<double> b) {
  KsResult result;
  if (a.empty() || b.empty()) return result;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const double n = static_cast<double>(a.size());
  const double m = static_cast<double>(b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] == x) ++i;
    while (j < b.size() && b[j] == x) ++j;
    result.statistic = std::max(result.statistic,
                                std::abs(static_cast<double>(i) / n - static_cast<double>(j) / m));
  }
  const double ne = std::sqrt(n * m / (n + m));
  result.p_value = kolmogorov_survival((ne + 0.12 + 0.11 / ne) * result.statistic);
  return result;
}

struct ChiSquareResult {
  double statistic = 0.0;
  int degrees_of_freedom = 0;  // 0: one category left, nothing to compare
  double p_value = 1.0;
  std::size_t categories = 0;  // distinct categories seen, before pooling
};

// Chi-square test of homogeneity for two samples of categories (any type
// with operator<): the 2 x k table of counts against the expected counts
// R_i C_j / N of a common law. The chi-square approximation needs expected
// counts of at least 5 (Cochran's rule), so categories with a smaller one (in
// either sample) are pooled into one category; if that pool is itself still
// below 5, it is merged into the smallest remaining category.
// df = (categories after pooling) - 1.
template <class Category>
ChiSquareResult chi_square_homogeneity(const std::vector<Category>& a,
                                       const std::vector<Category>& b) {
  ChiSquareResult result;
  std::map<Category, std::array<double, 2>> table;
  for (const auto& x : a) table[x][0] += 1.0;
  for (const auto& x : b) table[x][1] += 1.0;
  result.categories = table.size();
  const double rows[2] = {static_cast<double>(a.size()), static_cast<double>(b.size())};
  const double total = rows[0] + rows[1];
  if (rows[0] == 0.0 || rows[1] == 0.0) return result;
  // The smaller sample has the smaller expected count in every column.
  const double smaller = std::min(rows[0], rows[1]);
  auto sparse = [&](const std::array<double, 2>& c) {
    return (c[0] + c[1]) * smaller / total < 5.0;
  };
  std::vector<std::array<double, 2>> columns;
  std::array<double, 2> pool{0.0, 0.0};
  for (const auto& [category, counts] : table) {
    if (sparse(counts)) {
      pool[0] += counts[0];
      pool[1] += counts[1];
    } else {
      columns.push_back(counts);
    }
  }
  if (pool[0] + pool[1] > 0.0) {
    if (sparse(pool) && !columns.empty()) {
      auto& smallest = *std::min_element(columns.begin(), columns.end(), [](auto& x, auto& y) {
        return x[0] + x[1] < y[0] + y[1];
      });
      smallest[0] += pool[0];
      smallest[1] += pool[1];
    } else {
      columns.push_back(pool);
    }
  }
  if (columns.size() < 2) return result;
  for (const auto& c : columns) {
    for (int i = 0; i < 2; ++i) {
      const double expected = rows[i] * (c[0] + c[1]) / total;
      result.statistic += (c[i] - expected) * (c[i] - expected) / expected;
    }
  }
  result.degrees_of_freedom = static_cast<int>(columns.size()) - 1;
  const boost::math::chi_squared law(result.degrees_of_freedom);
  result.p_value = boost::math::cdf(boost::math::complement(law, result.statistic));
  return result;
}

}  // namespace pfmab::testing
