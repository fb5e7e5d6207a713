// Unit tests of the Thompson sampling baselines (local-thompson,
// centralized-thompson): each against a plain Thompson sampling written
// here on the streams its documentation names (rewards on client m's key,
// as every slot-by-slot baseline draws them; posterior draws on M + 1 + m,
// or the server's M), what they report, determinism, and the refusal of a
// family without a posterior.
#include "pfmab/algorithms/thompson.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <pcg_random.hpp>

#include "pfmab/rng/samplers.hpp"
#include "pfmab/rng/streams.hpp"
#include "pfmab/util/digest.hpp"
#include "pfmab/util/error.hpp"

#include "fixtures.hpp"

namespace pfmab::sim {
namespace {

using testing::digest_of;
using testing::instance_of;
using testing::spec_of;
using testing::synthetic_instance;

// A reward of the cell's family (Gaussian or Bernoulli) as the engine draws
// it, and a draw from the posterior after n rewards of sum `sum`, written
// out from the closed forms.
struct Reference {
  bool gaussian;
  double sigma;
  explicit Reference(const model::Instance& instance)
      : gaussian(instance.rewards().name() == "gaussian"),
        sigma(gaussian ? instance.rewards().value("sigma") : 0.0) {}
  double reward(double mu, pcg32& stream) const {
    if (gaussian) return mu + sigma * rng::UnitNormal()(stream);
    return std::uint64_t{stream()} < rng::bernoulli_threshold(mu) ? 1.0 : 0.0;
  }
  double posterior(std::uint64_t n, double sum, pcg32& stream) const {
    const auto x = static_cast<double>(n);
    if (gaussian) return sum / x + sigma / std::sqrt(x) * rng::UnitNormal()(stream);
    return rng::beta(stream, 1.0 + sum, 1.0 + x - sum);
  }
};

// The regret at every checkpoint of every client choosing by `choose(m, t,
// n, sum)` (n, sum: every client's counts and sums, row-major), rewards
// drawn from client m's stream.
template <class Choose>
std::vector<double> reference_regret(const Cell& cell, std::uint64_t seed,
                                     std::uint64_t replication, Choose choose) {
  const auto& instance = cell.instance();
  const std::size_t clients = instance.clients(), arms = instance.arms();
  const Reference law(instance);
  std::vector<pcg32> rewards;
  for (std::size_t m = 0; m < clients; ++m) {
    rewards.push_back(rng::make_stream({seed, cell.index(), replication, m}));
  }
  std::vector<std::uint64_t> n(clients * arms, 0);
  std::vector<double> sum(clients * arms, 0.0), regret;
  double total = 0.0;
  std::vector<std::size_t> played(clients);
  for (std::uint64_t t = 1; t <= cell.horizon(); ++t) {
    for (std::size_t m = 0; m < clients; ++m) played[m] = t <= arms ? t - 1 : choose(m, t, n, sum);
    for (std::size_t m = 0; m < clients; ++m) {
      const std::size_t i = m * arms + played[m];
      sum[i] += law.reward(instance.local_means(m)[played[m]], rewards[m]);
      ++n[i];
      total += cell.measured().gap(m, played[m]);
    }
    if (std::binary_search(cell.checkpoints().begin(), cell.checkpoints().end(), t)) {
      regret.push_back(total);
    }
  }
  return regret;
}

// The first index of the largest value
std::size_t first_max(const std::vector<double>& v) {
  return static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

// The same decisions: the regrets agree to rounding (summed in another
// order), where one other pull would move them by a gap, 0.05 or more.
void expect_same_regret(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t c = 0; c < got.size(); ++c) EXPECT_NEAR(got[c], want[c], 1e-9) << c;
}

const std::vector<std::vector<double>> kMeans{{0.3, 0.7, 0.61, 0.2}, {0.55, 0.2, 0.5, 0.45}};

TEST(LocalThompson, IsThompsonSamplingOnEachClientsOwnStreams) {
  // Both families, sigma != 1 so that it shows; the cell index (2) and
  // replication (5) are part of every stream key.
  for (const families::RewardFamily rewards :
       {families::RewardFamily{"gaussian", {0.4}}, families::RewardFamily{"bernoulli"}}) {
    SCOPED_TRACE(rewards.name());
    const Cell cell(spec_of(instance_of(kMeans, rewards), "local-thompson", 1.0, 3000), 2);
    const std::size_t clients = 2, arms = 4;
    const Reference law(cell.instance());
    std::vector<pcg32> own;  // key M + 1 + m
    for (std::size_t m = 0; m < clients; ++m) own.push_back(rng::make_stream({11, 2, 5, 3 + m}));
    const auto want = reference_regret(
        cell, 11, 5, [&](std::size_t m, std::uint64_t, const auto& n, const auto& sum) {
          std::vector<double> theta(arms);
          for (std::size_t k = 0; k < arms; ++k) {
            theta[k] = law.posterior(n[m * arms + k], sum[m * arms + k], own[m]);
          }
          return first_max(theta);
        });
    const auto r = run_replication(cell, 11, 5);
    expect_same_regret(r.series.regret, want);
    // it explored past the initial round, and settled: a client that kept
    // pulling its arms evenly would lose 0.27 (client 0) and 0.125 per slot
    EXPECT_GT(r.series.regret.back(), 2 * r.series.regret.front());
    EXPECT_LT(r.series.regret.back(), 0.1 * 3000);
  }
}

TEST(CentralizedThompson, IsThompsonSamplingOnTheJointModelFromTheServersStream) {
  // alpha = 0.3: w = 0.3 + 0.35 (own), 0.35 (other). Every theta drawn client
  // by client, arm by arm, from key M = 2, then each client's index.
  for (const families::RewardFamily rewards :
       {families::RewardFamily{"gaussian", {0.4}}, families::RewardFamily{"bernoulli"}}) {
    SCOPED_TRACE(rewards.name());
    const Cell cell(spec_of(instance_of(kMeans, rewards), "centralized-thompson", 0.3, 3000), 2);
    const std::size_t clients = 2, arms = 4;
    const double alpha = 0.3, shared = (1.0 - alpha) / 2.0;
    const Reference law(cell.instance());
    auto server = rng::make_stream({11, 2, 5, 2});
    std::uint64_t drawn = 0;
    std::vector<double> theta(clients * arms), column(arms);
    const auto want = reference_regret(
        cell, 11, 5, [&](std::size_t m, std::uint64_t t, const auto& n, const auto& sum) {
          if (t != drawn) {
            for (std::size_t i = 0; i < theta.size(); ++i)
              theta[i] = law.posterior(n[i], sum[i], server);
            std::fill(column.begin(), column.end(), 0.0);
            for (std::size_t c = 0; c < clients; ++c) {
              for (std::size_t k = 0; k < arms; ++k) column[k] += theta[c * arms + k];
            }
            drawn = t;
          }
          std::vector<double> index(arms);
          for (std::size_t k = 0; k < arms; ++k) {
            index[k] = alpha * theta[m * arms + k] + shared * column[k];
          }
          return first_max(index);
        });
    expect_same_regret(run_replication(cell, 11, 5).series.regret, want);
  }
}

TEST(ThompsonBaselines, ReportNoCommunicationEveryRewardAndTheMostPulledArm) {
  // alpha = 1 on the synthetic game: client m's best arm is m (mean 1, the
  // next 0.9), pulled most by both by T = 2e4.
  for (const std::string_view algorithm : {"local-thompson", "centralized-thompson"}) {
    SCOPED_TRACE(algorithm);
    auto s = spec_of(synthetic_instance(), algorithm, 1.0, 20'000);
    s.comm_cost = 100.0;  // would show in the regret if charged
    const auto r = run_replication(Cell(s, 0), 1, 0);
    EXPECT_TRUE(std::all_of(r.series.comm_count.begin(), r.series.comm_count.end(),
                            [](auto c) { return c == 0; }));
    EXPECT_EQ(r.phases, 0u);
    EXPECT_EQ(r.exploration_pulls, 20'000u * 4);
    EXPECT_EQ(r.fixation_slot, -1);
    EXPECT_EQ(r.fixed_arm, (std::vector<std::int32_t>{0, 1, 2, 3}));
    EXPECT_TRUE(r.identified());
  }
}

TEST(ThompsonBaselines, RunOnPoissonAndExponentialRewardsAndRefuseStudentT) {
  for (const std::string_view algorithm : {"local-thompson", "centralized-thompson"}) {
    SCOPED_TRACE(algorithm);
    for (const std::string_view family : {"poisson", "exponential"}) {
      SCOPED_TRACE(family);
      const auto r = run_replication(Cell(spec_of(instance_of({{2.0, 1.0, 0.5}, {0.5, 1.0, 2.5}},
                                                              families::RewardFamily(family)),
                                                  algorithm, 1.0, 20'000),
                                          0),
                                     3, 0);
      EXPECT_EQ(r.fixed_arm, (std::vector<std::int32_t>{0, 2}));
    }
    try {
      const Cell cell(
          spec_of(instance_of(kMeans, families::RewardFamily{"student-t"}), algorithm, 1.0, 100),
          0);
      ADD_FAILURE() << "student-t accepted";
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()).find(std::string(algorithm) +
                                           ": it draws each arm's mean from its posterior; "
                                           "student-t rewards have none (a Student-t location"),
                0u)
          << e.what();
    }
  }
}

TEST(ThompsonBaselines, SameResultOnAnyThreadCount) {
  // The synthetic game and 24 clients of random means: local-thompson is one
  // task per client.
  const auto many = testing::random_means(24, 5, 3);
  for (const std::string_view algorithm : {"local-thompson", "centralized-thompson"}) {
    SCOPED_TRACE(algorithm);
    for (const auto& instance : {synthetic_instance(), instance_of(many, {})}) {
      const Cell cell(spec_of(instance, algorithm, 0.5, 10'000), 0);
      testing::expect_one_digest_on_any_thread_count(cell);
    }
  }
}

}  // namespace
}  // namespace pfmab::sim
