// Student-t rewards (families/student_t.hpp): draws and tallies in law on
// fixed seeds within 5 standard errors, and no way to draw them aggregated.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include <boost/math/distributions/students_t.hpp>
#include <gtest/gtest.h>

#include "pfmab/families/registry.hpp"
#include "pfmab/rng/streams.hpp"
#include "pfmab/util/error.hpp"

#include "checks.hpp"

namespace pfmab::families {
namespace {

using StudentTRewards = StudentT::Sampler;
using testing::expect_moments;

TEST(StudentTRewards, DrawMomentsAtTenDegrees) {
  // nu = 10: variance 10 / 8, excess kurtosis 6 / (nu - 4) = 1.
  const StudentTRewards rewards(0.7, 10.0);
  auto s = rng::make_stream({60, 0, 0, 0});
  expect_moments(
      20'000, 0.7, 1.25, [&] { return rewards.draw(s); }, 1.0);
}

TEST(StudentTRewards, DrawCdfAtThreeDegrees) {
  // nu = 3 has no fourth moment: the CDF at five points instead, against
  // Boost's, each share of 1e5 draws within 5 sqrt(p (1 - p) / 1e5).
  const double mu = -1.0;
  const StudentTRewards rewards(mu, 3.0);
  auto s = rng::make_stream({61, 0, 0, 0});
  constexpr int draws = 100'000;
  const double points[] = {-4.0, -1.0, 0.0, 0.5, 3.0};
  int below[5] = {};
  for (int i = 0; i < draws; ++i) {
    const double t = rewards.draw(s) - mu;
    for (int j = 0; j < 5; ++j) below[j] += t <= points[j];
  }
  const boost::math::students_t law(3.0);
  for (int j = 0; j < 5; ++j) {
    SCOPED_TRACE(points[j]);
    const double p = boost::math::cdf(law, points[j]);
    EXPECT_NEAR(static_cast<double>(below[j]) / draws, p, 5.0 * std::sqrt(p * (1 - p) / draws));
  }
}

TEST(StudentTRewards, TallyOfOneIsDrawToTheBit) {
  const StudentTRewards rewards(2.0, 4.0);
  auto a = rng::make_stream({62, 0, 0, 0});
  for (int i = 0; i < 1000; ++i) {
    auto b = a;
    StudentTRewards::Tally tally(rewards);
    tally.add(b);
    EXPECT_EQ(tally.sum(1), rewards.draw(a));
    EXPECT_TRUE(a == b);
  }
}

TEST(StudentTRewards, TallyMoments) {
  // 100 rewards at nu = 10: mean 100 mu, variance 125, excess kurtosis 1/100.
  const StudentTRewards rewards(0.4, 10.0);
  auto s = rng::make_stream({63, 0, 0, 0});
  expect_moments(
      5000, 40.0, 125.0,
      [&] {
        StudentTRewards::Tally tally(rewards);
        for (int i = 0; i < 100; ++i) tally.add(s);
        return tally.sum(100);
      },
      0.01);
}

TEST(StudentTRewards, HasNoExactSumsToDraw) {
  // No sum_of, so no aggregated code path compiles for it, and the
  // dispatch of the aggregated mode refuses it at run time.
  static_assert(!SumsExactly<StudentTRewards>);
  static_assert(SumsExactly<Gaussian::Sampler> && SumsExactly<Bernoulli::Sampler> &&
                SumsExactly<Poisson::Sampler> && SumsExactly<Exponential::Sampler>);
  const RewardFamily rewards{"student-t", {4.0}};
  EXPECT_FALSE(rewards.family().exact_sums());
  EXPECT_THROW(with_exact_sums(rewards, []<class S>(std::type_identity<S>) {}), std::logic_error);
  bool per_pull = false;
  with_sampler(rewards, [&]<class S>(std::type_identity<S>) {
    per_pull = std::is_same_v<S, StudentTRewards>;
  });
  EXPECT_TRUE(per_pull);
}

TEST(StudentTRewards, DeclaresNuAndNoDivergence) {
  const RewardFamily rewards{"student-t"};
  EXPECT_EQ(rewards.value("nu"), 3.0);
  EXPECT_EQ(rewards.divergence(), nullptr);
  EXPECT_FALSE(rewards.family().no_divergence().empty());
  EXPECT_TRUE(std::isnan(rewards.subgaussian_sigma()));
  EXPECT_TRUE(std::isnan(rewards.ucb_scale()));
  EXPECT_THROW((RewardFamily{"student-t", {2.0}}), UserError);
  EXPECT_THROW((RewardFamily{"student-t", {2e6}}), UserError);
}

}  // namespace
}  // namespace pfmab::families
