#include "pfmab/stats/summary.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace pfmab::stats {
namespace {

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

}  // namespace
}  // namespace pfmab::stats
