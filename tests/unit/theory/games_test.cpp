// The run's table of games (theory/games.hpp): one entry and at most one C*
// solve per game, the game being the local means, the measured alpha and
// the reward family; a game with more distinct best arms than the solver's
// limit is n/a with the reason, unsolved; and the count of distinct best
// arms it is judged by.
#include "pfmab/theory/games.hpp"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/theory/allocation.hpp"
#include "pfmab/theory/bounds.hpp"
#include "pfmab/theory/kl_allocation.hpp"

#include "fixtures.hpp"

namespace pfmab::testing {
namespace {

using theory::Games;

// L clients and L arms, client m's best arm m (local and mixed, at any
// alpha): L distinct best arms.
std::shared_ptr<const model::Instance> own_best_arms(std::size_t distinct) {
  std::vector<std::vector<double>> rows(distinct, std::vector<double>(distinct, 0.2));
  for (std::size_t m = 0; m < distinct; ++m) rows[m][m] = 0.9;
  return instance_of(std::move(rows));
}

TEST(Games, EachGameIsSolvedOnceWhateverAsksForIt) {
  Games games;
  // the same means in two instances are the same game
  const auto game = synthetic_instance(), again = synthetic_instance();
  const model::MixedModel half(*game, 0.5), half_again(*again, 0.5), zero(*game, 0.0);
  EXPECT_EQ(games.add(*game, half), 0u);
  EXPECT_EQ(games.add(*again, half_again), 0u);
  EXPECT_EQ(games.add(*game, zero), 1u);  // another alpha, another game
  const auto noisier = synthetic_instance(families::RewardFamily{"gaussian", {0.7}});
  EXPECT_EQ(games.add(*noisier, model::MixedModel(*noisier, 0.5)), 2u);  // another sigma
  EXPECT_EQ(games.add(*game, half), 0u);
  EXPECT_EQ(games.size(), 3u);
  EXPECT_EQ(games.solves(), 3u);
  EXPECT_EQ(games[0].c_star, theory::optimal_allocation(half, 1.0).constant);
  EXPECT_TRUE(games[0].note.empty());
  EXPECT_EQ(games[2].c_star, theory::optimal_allocation(half, 0.7).constant);
}

// A Bernoulli game's C* is the KL program's, with the family's divergence,
// solved once like a Gaussian one.
TEST(Games, BernoulliGamesAreSolvedByTheKlProgramOnce) {
  Games games;
  const auto game = synthetic_instance(families::RewardFamily{"bernoulli"});
  const model::MixedModel half(*game, 0.5);
  const auto at = games.add(*game, half);
  EXPECT_EQ(games.add(*game, half), at);
  EXPECT_EQ(games.solves(), 1u);
  EXPECT_TRUE(games[at].note.empty()) << games[at].note;
  EXPECT_EQ(games[at].c_star,
            theory::kl_optimal_allocation(half, *game->rewards().divergence(), theory::kKlGap, {},
                                          theory::exact_ties(half))
                .constant);
}

TEST(Games, DistinctBestArmsCountsEachClientsMixedOptimumOnce) {
  EXPECT_EQ(theory::distinct_best_arms(model::MixedModel(*own_best_arms(5), 0.5)), 5u);
  // at alpha = 0 every client plays the best global arm
  EXPECT_EQ(theory::distinct_best_arms(model::MixedModel(*own_best_arms(5), 0.0)), 1u);
  // the synthetic game's clients share their best arms
  const auto synthetic = synthetic_instance();
  const model::MixedModel local(*synthetic, 1.0);
  std::vector<bool> seen(synthetic->arms(), false);
  std::size_t expected = 0;
  for (std::size_t m = 0; m < synthetic->clients(); ++m) {
    if (!seen[local.optimal_arm(m)]) ++expected;
    seen[local.optimal_arm(m)] = true;
  }
  EXPECT_EQ(theory::distinct_best_arms(local), expected);
}

// Just past the limit on K L^2 (256^3): a square game of 257 distinct best
// arms, and 64 distinct best arms among 4,097 arms. Each is n/a with the
// count, the reason and the limit, and not solved (the guard is on the
// game's size, not on time); the rest of the bounds are computed as ever.
TEST(Games, AGameJustBeyondTheSolversLimitIsNotAvailableWithTheReason) {
  const auto square = own_best_arms(theory::kMaxDistinctBestArms + 1);
  const model::MixedModel mixed(*square, 0.5);
  Games games;
  const auto b = theory::compute_bounds(*square, mixed, games, nullptr, 1000, 1.0, "not PF-UCB");
  EXPECT_TRUE(std::isnan(b.c_star));
  EXPECT_EQ(b.c_star_note,
            "257 distinct best arms among 257 arms; the solver's dense steps grow as K L^2, "
            "limit 256^3 (docs/limits.md)");
  EXPECT_GT(b.theorem1_constant, 0.0);

  std::vector<std::vector<double>> rows(64, std::vector<double>(4097, 0.2));
  for (std::size_t m = 0; m < rows.size(); ++m) rows[m][m] = 0.9;
  const auto wide = instance_of(std::move(rows));
  const auto at = games.add(*wide, model::MixedModel(*wide, 0.5));
  EXPECT_TRUE(std::isnan(games[at].c_star));
  EXPECT_EQ(games[at].note,
            "64 distinct best arms among 4097 arms; the solver's dense steps grow as K L^2, "
            "limit 256^3 (docs/limits.md)");
  EXPECT_EQ(games.solves(), 0u);
}

}  // namespace
}  // namespace pfmab::testing
