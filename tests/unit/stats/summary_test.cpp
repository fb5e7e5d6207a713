#include "pfmab/stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace pfmab::stats {
namespace {

using testing::sorted_quantile;

TEST(Summary, MeanStdAndStudentInterval) {
  // mean 2.5, s^2 = (2.25 + 0.25 + 0.25 + 2.25) / 3 = 5/3,
  // t_{0.975, 3} = 3.182446305284263, half width = t s / 2
  const std::vector<double> v{1, 2, 3, 4};
  const auto s = summarize(v);
  EXPECT_EQ(s.count, 4u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.std, std::sqrt(5.0 / 3.0), 1e-15);
  const double half = 3.182446305284263 * std::sqrt(5.0 / 3.0) / 2.0;
  EXPECT_NEAR(s.ci95_low, 2.5 - half, 1e-12);
  EXPECT_NEAR(s.ci95_high, 2.5 + half, 1e-12);
}

TEST(Summary, OneValueHasNoSpread) {
  const std::vector<double> v{7};
  const auto s = summarize(v);
  EXPECT_EQ(s.mean, 7.0);
  EXPECT_TRUE(std::isnan(s.std));
  EXPECT_TRUE(std::isnan(s.ci95_low));
}

void expect_exact(const std::vector<double>& values, const char* what) {
  constexpr double levels[] = {0.5, 0.05, 0.95, 0.0, 1.0, 0.25};
  const auto got = quantiles(values, levels);
  ASSERT_EQ(got.size(), std::size(levels));
  for (std::size_t l = 0; l < std::size(levels); ++l) {
    EXPECT_EQ(got[l], sorted_quantile(values, levels[l]))
        << what << ", n = " << values.size() << ", q = " << levels[l];
  }
}

TEST(Quantiles, HandComputed) {
  // h = q (n - 1) on {1, 2, 3, 4}: 1.5 -> 2.5, 0.15 -> 1.15, 2.85 -> 3.85
  constexpr double levels[] = {0.5, 0.05, 0.95};
  const auto q = quantiles({4, 1, 3, 2}, levels);
  EXPECT_DOUBLE_EQ(q[0], 2.5);
  EXPECT_DOUBLE_EQ(q[1], 1.15);
  EXPECT_DOUBLE_EQ(q[2], 3.85);
  EXPECT_TRUE(std::isnan(quantiles({}, levels)[0]));
  EXPECT_EQ(quantiles({7}, levels), (std::vector<double>{7, 7, 7}));
}

// Below 2048 values the selection runs on the whole column, above it on a
// sample's brackets: both must equal the sorted reference exactly, whatever
// the order and the ties.
TEST(Quantiles, EqualASortAtEverySizeAndShape) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(100.0, 20.0);
  for (const std::size_t n : {2, 3, 10, 2047, 2048, 2049, 10000, 65537}) {
    std::vector<double> gaussian(n), ties(n), equal(n, 3.0);
    for (auto& v : gaussian) v = normal(rng);
    for (auto& v : ties) v = std::floor(normal(rng) / 25.0);  // about 8 distinct values
    expect_exact(gaussian, "gaussian");
    expect_exact(ties, "ties");
    expect_exact(equal, "all equal");
    std::sort(gaussian.begin(), gaussian.end());
    expect_exact(gaussian, "ascending");
    std::reverse(gaussian.begin(), gaussian.end());
    expect_exact(gaussian, "descending");
  }
}

// A sample unlike the whole: every sampled place (multiples of n / 256)
// holds a large value, so every bracket misses its rank and each level falls
// back to selecting in the whole column.
TEST(Quantiles, ExactWhenTheSampleMisleads) {
  const std::size_t n = 10240, stride = n / 256;
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    values[i] = i % stride == 0 ? 1e6 + static_cast<double>(i) : static_cast<double>(i % 97);
  }
  expect_exact(values, "misleading sample");
}

}  // namespace
}  // namespace pfmab::stats
