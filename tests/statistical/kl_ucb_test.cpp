// Statistical tests of local-kl-ucb (Garivier & Cappe 2011): below UCB1 on
// Bernoulli games, near the Lai-Robbins rate, and logarithmic-looking on the
// families UCB1 refuses (Poisson, exponential). Fixed seeds; local-ucb and
// local-kl-ucb are run on the same cell index and seed, so each client's
// k-th reward comes from the same draw of its stream (one 32-bit draw per
// Bernoulli reward): paired replications.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/sim/runner.hpp"

#include "fixtures.hpp"

namespace pfmab::sim {
namespace {

// Every replication's regret at T / 10 (a checkpoint of every grid: one of
// its 20 linear points) and at T, for one algorithm at alpha = 1 (the
// local best arm is mixed-optimal: the measure local baselines are for).
struct Regrets {
  std::vector<double> tenth, last;
};

Regrets regrets_of(std::shared_ptr<const model::Instance> instance, std::string_view algorithm,
                   std::uint64_t horizon, std::uint64_t seed, std::uint64_t replications) {
  CellSpec spec;
  spec.instance = std::move(instance);
  spec.algorithm = testing::algorithm_named(algorithm);
  spec.alpha = 1.0;
  spec.horizon = horizon;
  const std::vector<Cell> cells{Cell(spec, 0)};
  RunOptions options;
  options.seed = seed;
  options.replications = replications;
  options.threads = 2;
  const auto results = run_sweep(cells, options)[0];
  const auto& grid = cells[0].checkpoints();
  const auto at = std::find(grid.begin(), grid.end(), horizon / 10);
  if (at == grid.end()) throw std::logic_error("T / 10 is not a checkpoint");
  Regrets r;
  for (const auto& result : results) {
    r.tenth.push_back(result.series.regret[static_cast<std::size_t>(at - grid.begin())]);
    r.last.push_back(result.series.regret.back());
  }
  return r;
}

double mean_of(const std::vector<double>& v) {
  double sum = 0.0;
  for (const double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

double standard_error_of(const std::vector<double>& v) {
  const double mean = mean_of(v);
  double squares = 0.0;
  for (const double x : v) squares += (x - mean) * (x - mean);
  const auto n = static_cast<double>(v.size());
  return std::sqrt(squares / (n - 1.0) / n);
}

// One client, Bernoulli arms of means 0.9 and 0.8 (gap 0.1), T = 1e5, 200
// paired replications.
// * Lai and Robbins (1985): a consistent policy pulls arm 1 at least
//   log T / KL(0.8, 0.9) = 11.513 / 0.04440 = 259.3 times, asymptotically;
//   kl-UCB attains it (Garivier & Cappe 2011, Theorem 2). Measured (seed
//   5): regret 22.8 +- 0.74 (SE), 228 pulls, 0.88 of it: at a finite T the
//   bound's lower-order terms (negative here) still show. Asserted: within
//   [0.7, 1.3] of it, at least 6 standard errors (0.029 of the ratio) from
//   the measured value on either side; a policy exploring like UCB1 is at
//   6.8.
// * UCB1's bonus reads the rewards as 1-sub-Gaussian-scaled (s = 1): about
//   2 log T / 0.1^2 = 2300 pulls asymptotically; measured regret 176.5 +-
//   2.4. Asserted: local-kl-ucb's mean regret below half of local-ucb's,
//   the paired difference more than 10 standard errors from 0.
TEST(LocalKlUcbRegret, NearLaiRobbinsAndFarBelowUcb1OnTwoBernoulliArms) {
  const auto instance = testing::instance_of({{0.9, 0.8}}, families::RewardFamily{"bernoulli"});
  const auto kl = instance->rewards().divergence();
  const double lai_robbins = std::log(1e5) / (*kl)(0.8, 0.9);
  const auto kl_ucb = regrets_of(instance, "local-kl-ucb", 100'000, 5, 200);
  const auto ucb = regrets_of(instance, "local-ucb", 100'000, 5, 200);
  const double pulls = mean_of(kl_ucb.last) / 0.1;
  std::cout << "[ kl-ucb ] two arms: local-kl-ucb R(1e5) = " << mean_of(kl_ucb.last) << " +- "
            << standard_error_of(kl_ucb.last) << " (" << pulls << " pulls, " << pulls / lai_robbins
            << " of log T / KL), local-ucb " << mean_of(ucb.last) << " +- "
            << standard_error_of(ucb.last) << '\n';
  EXPECT_GT(pulls / lai_robbins, 0.7);
  EXPECT_LT(pulls / lai_robbins, 1.3);
  std::vector<double> difference;
  for (std::size_t i = 0; i < ucb.last.size(); ++i) {
    difference.push_back(ucb.last[i] - kl_ucb.last[i]);
  }
  EXPECT_LT(mean_of(kl_ucb.last), 0.5 * mean_of(ucb.last));
  EXPECT_GT(mean_of(difference) / standard_error_of(difference), 10.0);
}

// The synthetic game (Fig. 1) with Bernoulli rewards at alpha = 1: client
// m's best arm has mean 1, its next 0.9. KL(0.9, 1) is infinite (a mean-1
// arm never pays 0), so kl-UCB stops pulling the others after a few tries,
// while UCB1 pulls the 0.9 arm about 2 log T / 0.01 times. Measured (seed
// 5, 30 replications): 22.3 against 1569.5 (SE about 9). Asserted:
// local-kl-ucb below a tenth of local-ucb's mean regret.
TEST(LocalKlUcbRegret, FarBelowUcb1OnTheSyntheticBernoulliGame) {
  const auto instance = testing::synthetic_instance(families::RewardFamily{"bernoulli"});
  const double kl_ucb = mean_of(regrets_of(instance, "local-kl-ucb", 100'000, 5, 30).last);
  const double ucb = mean_of(regrets_of(instance, "local-ucb", 100'000, 5, 30).last);
  std::cout << "[ kl-ucb ] synthetic, Bernoulli: local-kl-ucb R(1e5) = " << kl_ucb << ", local-ucb "
            << ucb << '\n';
  EXPECT_LT(kl_ucb, 0.1 * ucb);
}

// Poisson rewards on the synthetic game, exponential ones on the
// enhancement game (its means are positive), alpha = 1: the growth
// g = R(1e5) / R(1e4) over a decade, from the same replications. A regret
// linear in T gives g near 10, T^b gives 10^b, a ln T + b (b >= 0) at most
// ln 1e5 / ln 1e4 = 1.25. The smallest KL gaps here (Poisson: KL(0.9, 1) =
// 0.0052, about 2200 pulls at 1e4) are not resolved by 1e4, so g is above
// 1.25. Measured (seed 5, 50 replications): Poisson 757.1 -> 1234.2,
// g = 1.63; exponential 963.7 -> 1857.3, g = 1.93 (SE of g about 0.05).
// Asserted: g <= 2.5 (at most T^0.4), 10 standard errors above the larger.
TEST(LocalKlUcbRegret, LogarithmicLookingOnPoissonAndExponentialRewards) {
  struct Case {
    const char* family;
    const char* means;
  };
  for (const Case c :
       {Case{"poisson", "synthetic_4x9.csv"}, Case{"exponential", "enhancement_4x9.csv"}}) {
    SCOPED_TRACE(c.family);
    const auto instance = std::make_shared<const model::Instance>(
        model::read_means_csv(testing::shared_data(c.means)), families::RewardFamily{c.family});
    const auto r = regrets_of(instance, "local-kl-ucb", 100'000, 5, 50);
    const double growth = mean_of(r.last) / mean_of(r.tenth);
    std::cout << "[ kl-ucb ] " << c.family << ": R(1e4) = " << mean_of(r.tenth)
              << ", R(1e5) = " << mean_of(r.last) << " +- " << standard_error_of(r.last)
              << ", growth " << growth << '\n';
    EXPECT_GT(mean_of(r.tenth), 0.0);
    EXPECT_LE(growth, 2.5);
  }
}

}  // namespace
}  // namespace pfmab::sim
