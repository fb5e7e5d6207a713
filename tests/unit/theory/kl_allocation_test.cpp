// C* with a family's KL (theory/kl_allocation.hpp, docs/allocation.md,
// "Other reward families: the KL program"). Every solve is certified: the
// returned value is feasible (an upper bound on C*) and at most `gap` of it
// above a lower bound, so two solves of the same C* agree within the sum of
// their gaps; that, plus 1e-12 for rounding, is the tolerance wherever a
// value is compared, unless stated otherwise.
#include "pfmab/theory/kl_allocation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/theory/allocation.hpp"
#include "pfmab/theory/games.hpp"
#include "pfmab/theory/kl_alternative.hpp"

#include "fixtures.hpp"
#include "test_divergences.hpp"

namespace pfmab::testing {
namespace {

using test::BernoulliKl;
using test::ExponentialKl;
using test::GaussianKl;
using test::PoissonKl;
using theory::kl_optimal_allocation;
using Rows = std::vector<std::vector<double>>;

const std::vector<double> kAlphas{0.0, 0.2, 0.5, 0.9, 1.0};

Rows synthetic_rows() { return model::read_means_csv(shared_data("synthetic_4x9.csv")).rows; }
Rows movielens_rows() { return model::read_means_csv(shared_data("movielens_10x40.csv")).rows; }

model::MixedModel mixed_of(const Rows& rows, double alpha) {
  std::vector<double> flat;
  for (const auto& row : rows) flat.insert(flat.end(), row.begin(), row.end());
  return model::MixedModel(flat, rows.size(), alpha);
}

// Two certified solves of one C*: within the sum of their gaps.
double agreement(const theory::OptimalAllocation& a, const theory::OptimalAllocation& b) {
  return (a.gap + b.gap) * std::max(a.constant, b.constant) + 1e-12;
}

// x / KL with x / inf = 0: an arm no alternative can make best is free.
double per_divergence(double x, double divergence) {
  return std::isinf(divergence) ? 0.0 : x / divergence;
}

// At alpha = 1 each client is its own bandit and C* is Lai and Robbins' with
// the family's KL: sum_m sum_{k != k*_m} D'_{k,m} / KL(mu_{k,m}, mu_{k*_m,m})
// (0 where that KL is infinite: a Bernoulli best arm of mean 1).
// Exponential rewards: where a best arm's mean is more than twice another
// arm's (the synthetic game's 1 against 0.3 to 0.5), the alternative moves
// that arm's mean into its KL's concave stretch.
TEST(KlAllocation, IsLaiAndRobbinsPerClientAtAlphaOne) {
  const GaussianKl gaussian(0.7);
  const BernoulliKl bernoulli;
  const PoissonKl poisson;
  const ExponentialKl exponential;
  const Rows mild{{0.45, 0.5, 0.55}, {0.52, 0.47, 0.49}, {0.3, 0.6, 0.2}};
  for (const Rows& rows : {synthetic_rows(), mild}) {
    const auto mixed = mixed_of(rows, 1.0);
    for (const families::Divergence* kl : std::initializer_list<const families::Divergence*>{
             &gaussian, &bernoulli, &poisson, &exponential}) {
      double expected = 0.0;
      for (std::size_t m = 0; m < mixed.clients(); ++m) {
        const std::size_t best = mixed.optimal_arm(m);
        for (std::size_t k = 0; k < mixed.arms(); ++k) {
          if (k == best) continue;
          expected += per_divergence(mixed.gap(m, k),
                                     (*kl)(mixed.local_mean(m, k), mixed.local_mean(m, best)));
        }
      }
      const auto solved = kl_optimal_allocation(mixed, *kl);
      EXPECT_LE(solved.gap, 1e-6);
      // the returned value is feasible, within its gap of a lower bound
      EXPECT_GE(solved.constant, expected * (1.0 - 1e-12));
      EXPECT_LE(solved.constant * (1.0 - solved.gap), expected * (1.0 + 1e-12));
    }
  }
}

// Gaussian KL through the generic solver against the closed-form solver
// (optimal_allocation, certified to 1e-11): relative 1e-6, the generic
// solve's certified gap being at most that.
TEST(KlAllocation, GaussianAgreesWithTheClosedFormSolver) {
  for (const double sigma : {1.0, 0.3}) {
    const GaussianKl gaussian(sigma);
    for (const double alpha : kAlphas) {
      const auto mixed = mixed_of(synthetic_rows(), alpha);
      const auto generic = kl_optimal_allocation(mixed, gaussian);
      const auto closed = theory::optimal_allocation(mixed, sigma);
      EXPECT_LE(generic.gap, 1e-6) << "alpha " << alpha;
      EXPECT_NEAR(generic.constant, closed.constant, 1e-6 * closed.constant) << "alpha " << alpha;
    }
  }
  // MovieLens takes 0.3 to 3 s a solve (docs/allocation.md): two alphas
  const GaussianKl unit(1.0);
  for (const double alpha : {0.0, 1.0}) {
    const auto mixed = mixed_of(movielens_rows(), alpha);
    const auto generic = kl_optimal_allocation(mixed, unit);
    EXPECT_LE(generic.gap, 1e-6) << "alpha " << alpha;
    EXPECT_NEAR(generic.constant, theory::optimal_allocation(mixed, 1.0).constant,
                1e-6 * generic.constant)
        << "alpha " << alpha;
  }
}

// Pinsker, KL_Bernoulli(p, q) >= 2 (p - q)^2, the Gaussian KL at sigma 1/2:
// every constraint of the Bernoulli program holds where the Gaussian one
// does, so its C* is never above (within the two gaps). With every mean in
// [0.45, 0.55] the Bernoulli KL is 2 (p - q)^2 (1 + O((p - q)^2 + (p -
// 1/2)^2)): within 3% (measured: 0.6 to 1.1%).
TEST(KlAllocation, BernoulliIsBelowGaussianAtAHalfAndCloseToItNearAHalf) {
  const BernoulliKl bernoulli;
  const GaussianKl half(0.5);
  const Rows near_half{{0.55, 0.5, 0.45, 0.48}, {0.46, 0.54, 0.5, 0.47}, {0.5, 0.45, 0.53, 0.51}};
  for (const double alpha : kAlphas) {
    for (const Rows& rows : {synthetic_rows(), near_half}) {
      const auto mixed = mixed_of(rows, alpha);
      const auto b = kl_optimal_allocation(mixed, bernoulli);
      const auto g = theory::optimal_allocation(mixed, 0.5);
      EXPECT_LE(b.constant, g.constant + agreement(b, g)) << "alpha " << alpha;
    }
    const auto mixed = mixed_of(near_half, alpha);
    const double b = kl_optimal_allocation(mixed, bernoulli).constant;
    const double g = theory::optimal_allocation(mixed, 0.5).constant;
    EXPECT_GT(b, 0.97 * g) << "alpha " << alpha;
  }
}

// The program does not depend on how clients and arms are numbered.
TEST(KlAllocation, IsInvariantUnderRelabellingClientsAndArms) {
  const Rows rows{{0.9, 0.2, 0.5, 0.4}, {0.1, 0.8, 0.6, 0.3}, {0.3, 0.4, 0.7, 0.35}};
  const std::vector<std::size_t> clients{2, 0, 1}, arms{3, 1, 0, 2};
  Rows permuted(3, std::vector<double>(4));
  for (std::size_t m = 0; m < 3; ++m) {
    for (std::size_t k = 0; k < 4; ++k) permuted[m][k] = rows[clients[m]][arms[k]];
  }
  for (const double alpha : {0.0, 0.3, 0.8}) {
    for (const families::Divergence* kl : std::initializer_list<const families::Divergence*>{
             new BernoulliKl, new PoissonKl, new ExponentialKl}) {
      const auto a = kl_optimal_allocation(mixed_of(rows, alpha), *kl);
      const auto b = kl_optimal_allocation(mixed_of(permuted, alpha), *kl);
      EXPECT_NEAR(a.constant, b.constant, agreement(a, b)) << "alpha " << alpha;
      delete kl;
    }
  }
}

// Two clients, two arms, alpha = 0 (every weight 1/2), Bernoulli: arm 0 has
// local means (0.7, 0.5), arm 1 (0.3, 0.5); both clients' mixed means are
// 0.6 and 0.4, D = 0.2. Arm 0 is both clients' best, so only arm 1 is
// explored (x_0 at client 0, x_1 at client 1), and the two constraints are
// the same: F(x) = min x_0 kl(0.3, l_0) + x_1 kl(0.5, l_1) over (l_0 - 0.3
// + l_1 - 0.5) / 2 = 0.2, i.e. l_0 + l_1 = 1.2. At the optimum the cost
// 0.2 of each variable is y times its divergence (the cut's KKT condition,
// one multiplier y), so kl(0.3, l_0) = kl(0.5, l_1) = 0.2 / y =: d, and F =
// (x_0 + x_1) d = 1 gives C* = 0.2 (x_0 + x_1) = 0.2 / d: l_0 is the root
// of kl(0.3, l) = kl(0.5, 1.2 - l), found here by bisection.
TEST(KlAllocation, SolvesATwoByTwoBernoulliGameByHand) {
  const BernoulliKl kl;
  double lo = 0.3, hi = 0.7;  // kl(0.3, l) - kl(0.5, 1.2 - l) rises from < 0 to > 0
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (kl(0.3, mid) < kl(0.5, 1.2 - mid) ? lo : hi) = mid;
  }
  const double expected = 0.2 / kl(0.3, lo);
  const auto solved = kl_optimal_allocation(mixed_of({{0.7, 0.3}, {0.5, 0.5}}, 0.0), kl);
  EXPECT_LE(solved.gap, 1e-6);
  EXPECT_GE(solved.constant, expected * (1.0 - 1e-12));
  EXPECT_LE(solved.constant * (1.0 - solved.gap), expected * (1.0 + 1e-12));
}

// Issue 27 quotes C* for Bernoulli rewards on the synthetic game from an
// independent solver, to 4 significant figures: 101.6, 39.78 and 18.45 at
// alpha 0, 0.5 and 0.9 (measured here: 101.6465, 39.77821, 18.45199).
TEST(KlAllocation, MatchesTheIssuesBernoulliValuesOnTheSyntheticGame) {
  const BernoulliKl kl;
  const std::vector<std::pair<double, double>> quoted{{0.0, 101.6}, {0.5, 39.78}, {0.9, 18.45}};
  for (const auto& [alpha, value] : quoted) {
    const auto solved = kl_optimal_allocation(mixed_of(synthetic_rows(), alpha), kl);
    // 4 significant figures: within half a unit of the 4th
    const double unit = std::pow(10.0, std::floor(std::log10(value)) - 3.0);
    EXPECT_NEAR(solved.constant, value, 0.5 * unit) << "alpha " << alpha;
  }
}

// Certified to 1e-6 on the synthetic game at every alpha of the paper for
// Gaussian and Bernoulli rewards. Poisson rewards: with means lifted to
// 0.02 + 0.96 mu at alpha > 0 (at alpha 0 that certificate stops at 9e-4;
// docs/allocation.md, Limits); on the game itself, whose means of 0 have the
// linear KL(0, lambda) = lambda, a branch of their own (convex_move 0), at
// every alpha but 0.2, where the certificate stops at 1.4e-6 (asserted
// below 1e-5). Exponential rewards, whose KL is
// concave in lambda past 2 mu: at every alpha, on the game itself (an
// exponential mean of 0 cannot move: its terms drop out) and with its means
// lifted to 0.05 + mu.
TEST(KlAllocation, IsCertifiedToOneInAMillionOnTheSyntheticGame) {
  const GaussianKl gaussian(1.0);
  const BernoulliKl bernoulli;
  const PoissonKl poisson;
  const ExponentialKl exponential;
  Rows lifted = synthetic_rows(), above_zero = synthetic_rows();
  for (auto& row : lifted) {
    for (auto& mu : row) mu = 0.02 + 0.96 * mu;
  }
  for (auto& row : above_zero) {
    for (auto& mu : row) mu += 0.05;
  }
  for (const double alpha : kAlphas) {
    const auto mixed = mixed_of(synthetic_rows(), alpha);
    EXPECT_LE(kl_optimal_allocation(mixed, gaussian).gap, 1e-6) << "alpha " << alpha;
    EXPECT_LE(kl_optimal_allocation(mixed, bernoulli).gap, 1e-6) << "alpha " << alpha;
    if (alpha > 0.0) {
      EXPECT_LE(kl_optimal_allocation(mixed_of(lifted, alpha), poisson).gap, 1e-6)
          << "alpha " << alpha;
    }
    EXPECT_LE(kl_optimal_allocation(mixed, poisson).gap, alpha == 0.2 ? 1e-5 : 1e-6)
        << "alpha " << alpha;
    EXPECT_LE(kl_optimal_allocation(mixed, exponential).gap, 1e-6) << "alpha " << alpha;
    EXPECT_LE(kl_optimal_allocation(mixed_of(above_zero, alpha), exponential).gap, 1e-6)
        << "alpha " << alpha;
  }
}

// Two clients, three arms, exponential rewards, against
// tools/kl_cstar_reference.py (independent of the engine: each closest
// alternative from a zoomed dense grid over the moves, C* from Kelley's
// cutting planes solved by scipy's HiGHS), which gave 2.897550381 at alpha
// 0.5 and 2.924722413 at alpha 0.2 (its lower and upper bounds agreeing to
// 1e-8), its closest alternatives at the optimum moving a mean past 2 mu in
// two of the four constraints at alpha 0.5 and three at 0.2. Tolerance:
// relative 1e-6, the solver's certified gap (measured: 4e-7 and 7e-8).
TEST(KlAllocation, MatchesABruteForceExponentialGame) {
  const ExponentialKl kl;
  const Rows rows{{1.0, 0.3, 0.1}, {0.2, 1.0, 0.15}};
  for (const auto& [alpha, reference] :
       std::vector<std::pair<double, double>>{{0.5, 2.897550381}, {0.2, 2.924722413}}) {
    const auto solved = kl_optimal_allocation(mixed_of(rows, alpha), kl);
    EXPECT_LE(solved.gap, 1e-6) << "alpha " << alpha;
    EXPECT_NEAR(solved.constant, reference, 1e-6 * reference) << "alpha " << alpha;
  }
}

// One constraint of exponential rewards: arm k's means 0.1 and 0.12 at two
// clients move up, the best arm's mean 1 at a third moves down (each weight
// 1/2), to close a lead of 0.45 at pulls x = (1, 1, 1). Splitting the lead
// keeps both up moves in their convex stretches (at most mu: lambda <= 2 mu)
// and leaves most of it to the best arm; one up move alone far past 2 mu,
// where the KL grows only like log lambda, costs less. Its branches
// (theory::branches) are the convex one and one per up move; the least is
// a concave one's, checked against a dense grid over the two up moves (the
// down move closes the lead; relative 1e-4, the grid's resolution).
TEST(KlAllocation, TheClosestAlternativeMayMoveAMeanPastTwiceIt) {
  const ExponentialKl kl;
  theory::KlConstraint constraint;
  constraint.gap = 0.45;
  theory::add_term(kl, constraint, 0, 0.1, 0.5, 1.0);
  theory::add_term(kl, constraint, 1, 0.12, 0.5, 1.0);
  theory::add_term(kl, constraint, 2, 1.0, 0.5, -1.0);
  const std::vector<double> x{1.0, 1.0, 1.0};
  auto branches = theory::branches(constraint);
  ASSERT_EQ(branches.size(), 3u);
  double convex = 0.0, least = std::numeric_limits<double>::infinity();
  const theory::KlConstraint* closest = nullptr;
  for (auto& branch : branches) {
    theory::solve_alternative(kl, x, branch);
    if (branch.concave == theory::KlConstraint::kConvex) convex = branch.value;
    if (branch.value < least) {
      least = branch.value;
      closest = &branch;
    }
  }
  ASSERT_NE(closest->concave, theory::KlConstraint::kConvex);
  const auto& moved = closest->terms[closest->concave];
  EXPECT_GT(moved.move, moved.mean);  // lambda past 2 mu
  EXPECT_LT(least, 0.8 * convex);     // measured: 0.976 against 1.375
  double grid = std::numeric_limits<double>::infinity();
  const int points = 2000;
  for (int i = 0; i <= points; ++i) {
    for (int j = 0; j <= points; ++j) {
      const double up0 = 0.9 * i / points, up1 = 0.9 * j / points;
      const double down = (0.45 - 0.5 * (up0 + up1)) / 0.5;
      if (down < 0.0 || down >= 1.0) continue;
      grid = std::min(grid, kl(0.1, 0.1 + up0) + kl(0.12, 0.12 + up1) + kl(1.0, 1.0 - down));
    }
  }
  EXPECT_LE(least, grid * (1.0 + 1e-12));  // the grid's least is an alternative's
  EXPECT_NEAR(least, grid, 1e-4 * grid);
}

// An exact tie in a client's best arm: finite C* in both solvers once the
// tied arm is passed (Graves and Lai), as Games passes it; as the gap
// closes C* grows like 1 / gap and then drops to the tied game's value.
TEST(KlAllocation, ATieIsFiniteAndTheConstantJumpsAsTheGapCloses) {
  const BernoulliKl bernoulli;
  const auto game = [](double gap) {
    return mixed_of({{0.6, 0.6 - gap, 0.2}, {0.55, 0.55 - gap, 0.3}}, 0.5);
  };
  const auto tied = game(0.0);
  const auto ties = theory::exact_ties(tied);
  ASSERT_EQ(ties, (std::vector<std::uint8_t>{0, 1, 0, 0, 1, 0}));
  const auto g_tie = theory::optimal_allocation(tied, 0.5, theory::Coupling::coupled,
                                                theory::kExactGap, {}, nullptr, ties);
  const auto b_tie = kl_optimal_allocation(tied, bernoulli, 1e-6, {}, ties);
  ASSERT_TRUE(std::isfinite(g_tie.constant));
  ASSERT_TRUE(std::isfinite(b_tie.constant));
  EXPECT_GT(b_tie.constant, 0.0);
  // not passed: +inf, as before
  EXPECT_TRUE(std::isinf(kl_optimal_allocation(tied, bernoulli).constant));
  EXPECT_TRUE(std::isinf(theory::optimal_allocation(tied, 0.5).constant));
  // with a gap the arm costs at least its Lai and Robbins share at each
  // client, D / KL: growing like 1 / gap, then gone at the tie
  double last = 0.0;
  for (const double gap : {1e-1, 1e-2, 1e-3}) {
    const auto open = game(gap);
    const auto g = theory::optimal_allocation(open, 0.5);
    const auto b = kl_optimal_allocation(open, bernoulli);
    EXPECT_GT(g.constant, last);
    EXPECT_GT(g.constant, g_tie.constant);
    EXPECT_GT(b.constant, b_tie.constant);
    EXPECT_LE(b.constant, g.constant + agreement(b, g));  // Pinsker
    last = g.constant;
  }
}

// Games: a tie in the true mixed model gives a finite C*.
TEST(KlAllocation, GamesSolveATiedGameToAFiniteConstant) {
  const auto instance = instance_of({{0.5, 0.5, 0.1}, {0.5, 0.5, 0.2}});
  theory::Games games;
  const auto at = games.add(*instance, model::MixedModel(*instance, 0.5));
  EXPECT_TRUE(std::isfinite(games[at].c_star));
  EXPECT_GT(games[at].c_star, 0.0);
}

}  // namespace
}  // namespace pfmab::testing
