// Who takes part in a phase: the first participant's truncated geometric
// law by hand, the draw bounded for any q in (0, 1], and its distribution
// against the conditioned product law by chi-square with fixed seeds.
#include "pfmab/sim/participants.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/rng/streams.hpp"
#include "pfmab/sim/participation.hpp"
#include "pfmab/util/error.hpp"

namespace pfmab::sim {
namespace {

pcg32 server_stream(std::uint64_t seed) { return rng::make_stream({seed, 0, 0, 4}); }

std::size_t count_of(const std::vector<bool>& participates) {
  std::size_t count = 0;
  for (const bool p : participates) count += p ? 1 : 0;
  return count;
}

// Pearson's statistic sum (observed - expected)^2 / expected.
double chi_square(const std::vector<double>& observed, const std::vector<double>& expected) {
  double statistic = 0.0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    statistic += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
  }
  return statistic;
}

TEST(FirstParticipant, InvertsTheTruncatedGeometricCdfByHand) {
  // q = 1/2, M = 3: c = 7/8, P(J = 0) = 4/7, P(J <= 1) = 6/7.
  EXPECT_EQ(first_participant(0.5, 3, 0.0), 0u);
  EXPECT_EQ(first_participant(0.5, 3, 0.57), 0u);  // below 4/7 = 0.5714
  EXPECT_EQ(first_participant(0.5, 3, 0.58), 1u);
  EXPECT_EQ(first_participant(0.5, 3, 0.85), 1u);  // below 6/7 = 0.8571
  EXPECT_EQ(first_participant(0.5, 3, 0.86), 2u);
  EXPECT_EQ(first_participant(0.5, 3, std::nextafter(1.0, 0.0)), 2u);
  // q = 1: the first client always
  EXPECT_EQ(first_participant(1.0, 5, 0.999), 0u);
  // q = 1e-300, where 1 - q rounds to 1: J is uniform, floor(u M)
  EXPECT_EQ(first_participant(1e-300, 1000, 0.4567), 456u);
  EXPECT_EQ(first_participant(1e-300, 1000, 0.0), 0u);
  EXPECT_EQ(first_participant(1e-300, 1000, std::nextafter(1.0, 0.0)), 999u);
}

TEST(DrawParticipants, EveryClientTakingPartDrawsNothing) {
  auto stream = server_stream(1);
  const auto before = stream;
  std::vector<bool> participates(4, false);
  draw_participants(Participation{}, stream, participates);
  EXPECT_EQ(count_of(participates), 4u);
  draw_participants(Participation{1.0, 4}, stream, participates);  // S = M
  EXPECT_EQ(count_of(participates), 4u);
  EXPECT_EQ(stream, before);
}

TEST(DrawParticipants, ExactlySClients) {
  auto stream = server_stream(2);
  std::vector<bool> participates(7);
  for (int i = 0; i < 100; ++i) {
    draw_participants(Participation{1.0, 3}, stream, participates);
    EXPECT_EQ(count_of(participates), 3u);
  }
}

// q = 1e-300 used to redraw until someone took part, in effect forever.
// Now each draw takes at most M uniforms and the phase always has exactly
// one participant (two would need a second success, probability ~M q), the
// first one uniform over the clients: 40,000 draws over M = 4 give counts
// whose chi-square (3 degrees of freedom) stays below 16.27, its 0.999
// quantile.
TEST(DrawParticipants, TinyProbabilityIsBoundedWithExactlyOneUniformParticipant) {
  for (const std::size_t clients : {std::size_t{1}, std::size_t{4}, std::size_t{1000}}) {
    auto stream = server_stream(3);
    std::vector<bool> participates(clients);
    for (int i = 0; i < 200; ++i) {
      draw_participants(Participation{1e-300, std::nullopt}, stream, participates);
      EXPECT_EQ(count_of(participates), 1u);
    }
  }
  auto stream = server_stream(4);
  std::vector<bool> participates(4);
  std::vector<double> observed(4, 0.0);
  constexpr int draws = 40'000;
  for (int i = 0; i < draws; ++i) {
    draw_participants(Participation{1e-300, std::nullopt}, stream, participates);
    for (std::size_t m = 0; m < 4; ++m) observed[m] += participates[m] ? 1.0 : 0.0;
  }
  EXPECT_LT(chi_square(observed, std::vector<double>(4, draws / 4.0)), 16.27);
}

// The number of participants is Binomial(M, q) conditioned on >= 1: M = 8,
// q = 0.2 (a sixth of the unconditioned draws would be empty), 200,000
// draws, counts 1..6 and >= 7 (expected >= 5 in each): the chi-square with 6
// degrees of freedom stays below 22.46, its 0.999 quantile.
TEST(DrawParticipants, CountIsBinomialConditionedOnSomeone) {
  constexpr std::size_t clients = 8;
  constexpr double q = 0.2;
  constexpr int draws = 200'000;
  auto stream = server_stream(5);
  std::vector<bool> participates(clients);
  std::vector<double> observed(7, 0.0);
  for (int i = 0; i < draws; ++i) {
    draw_participants(Participation{q, std::nullopt}, stream, participates);
    const auto count = count_of(participates);
    ASSERT_GE(count, 1u);
    observed[std::min<std::size_t>(count, 7) - 1] += 1.0;
  }
  const double nonempty = 1.0 - std::pow(1.0 - q, clients);
  std::vector<double> expected(7, 0.0);
  double binomial = std::pow(1.0 - q, clients);  // P(count = 0)
  for (std::size_t k = 1; k <= clients; ++k) {
    binomial *= static_cast<double>(clients - k + 1) / static_cast<double>(k) * q / (1.0 - q);
    expected[std::min<std::size_t>(k, 7) - 1] += draws * binomial / nonempty;
  }
  EXPECT_LT(chi_square(observed, expected), 22.46);
}

// Not only the count: each of the 15 non-empty patterns of M = 4 clients at
// q = 0.3 has probability q^n (1 - q)^(4 - n) / (1 - 0.7^4), so the draw
// neither favours early nor late clients. 100,000 draws: chi-square with 14
// degrees of freedom below 36.12, its 0.999 quantile.
TEST(DrawParticipants, EveryNonEmptyPatternHasItsConditionedProbability) {
  constexpr double q = 0.3;
  constexpr int draws = 100'000;
  auto stream = server_stream(6);
  std::vector<bool> participates(4);
  std::vector<double> observed(16, 0.0);
  for (int i = 0; i < draws; ++i) {
    draw_participants(Participation{q, std::nullopt}, stream, participates);
    unsigned pattern = 0;
    for (unsigned m = 0; m < 4; ++m) pattern |= participates[m] ? 1u << m : 0u;
    observed[pattern] += 1.0;
  }
  EXPECT_EQ(observed[0], 0.0);
  std::vector<double> expected;
  for (unsigned pattern = 1; pattern < 16; ++pattern) {
    const int n = std::popcount(pattern);
    expected.push_back(draws * std::pow(q, n) * std::pow(1.0 - q, 4 - n) /
                       (1.0 - std::pow(1.0 - q, 4)));
  }
  EXPECT_LT(chi_square({observed.begin() + 1, observed.end()}, expected), 36.12);
}

TEST(Aggregation, NamesRoundTripAndUnknownOnesAreRefused) {
  for (const auto a : {Aggregation::latest, Aggregation::participants}) {
    EXPECT_EQ(parse_aggregation(to_string(a)), a);
  }
  EXPECT_THROW(parse_aggregation("stale"), UserError);
}

}  // namespace
}  // namespace pfmab::sim
