#include "pfmab/theory/phase_rule.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/util/error.hpp"

namespace pfmab::theory {
namespace {

// The paper's synthetic game: M = 4, T = 1e6, f(p) = 2^p log T, so
// f(1) = 2 log T = 27.631021115928547.
TEST(PhaseRule, ExplorationLengthsByHand) {
  const PhaseRuleSpec params;
  // alpha = 0.5: n_g = ceil(0.5 * 27.63) = 14, n_l = ceil(4 * 0.5 * 27.63) = ceil(55.26) = 56
  const PhaseRule half(params, 0.5, 4, 1'000'000);
  EXPECT_EQ(half.global_rounds(1), 14u);
  EXPECT_EQ(half.local_rounds(1), 56u);
  // phase 3: f = 8 log T = 110.52: n_g = ceil(55.26) = 56, n_l = ceil(221.05) = 222
  EXPECT_EQ(half.global_rounds(3), 56u);
  EXPECT_EQ(half.local_rounds(3), 222u);
  // alpha = 0.2: n_g = ceil(0.8 * 27.63) = ceil(22.10) = 23, n_l = ceil(0.8 * 27.63) = 23
  const PhaseRule low(params, 0.2, 4, 1'000'000);
  EXPECT_EQ(low.global_rounds(1), 23u);
  EXPECT_EQ(low.local_rounds(1), 23u);
  // alpha = 1: no global exploration; alpha = 0: no local exploration
  const PhaseRule local(params, 1.0, 4, 1'000'000);
  const PhaseRule global(params, 0.0, 4, 1'000'000);
  for (std::uint64_t p = 1; p <= 20; ++p) {
    EXPECT_EQ(local.global_rounds(p), 0u);
    EXPECT_EQ(global.local_rounds(p), 0u);
  }
  EXPECT_EQ(local.local_rounds(1), 111u);   // ceil(4 * 27.63) = ceil(110.52)
  EXPECT_EQ(global.global_rounds(1), 28u);  // ceil(27.63)
}

TEST(PhaseRule, ConfidenceRadiusByHand) {
  // With f(p) = 2^p log T and L = log T the logs cancel:
  // B_p = sqrt(4 / (M (2^{p+1} - 2))): B_1 = sqrt(1/2), B_2 = sqrt(1/6) for M = 4.
  const PhaseRule rule(PhaseRuleSpec{}, 0.5, 4, 1'000'000);
  EXPECT_NEAR(rule.confidence_radius(1), std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(rule.confidence_radius(2), std::sqrt(1.0 / 6.0), 1e-15);
  // L = log(MT) = log(4e6) = 15.201804919084164, f(1) = 2 log(1e6):
  // B_1 = sqrt(4 * 15.2018 / (4 * 27.6310)) = 0.74175...
  PhaseRuleSpec mt;
  mt.log_term = LogTerm::clients_horizon;
  EXPECT_NEAR(PhaseRule(mt, 0.5, 4, 1'000'000).confidence_radius(1),
              std::sqrt(15.201804919084164 / 27.631021115928547), 1e-14);
  // c_B = 1 and a constant schedule: B_p = sqrt(log T / (M lambda p)).
  PhaseRuleSpec c1;
  c1.confidence_constant = 1.0;
  c1.schedule = {ScheduleKind::constant, 5.0};
  EXPECT_NEAR(PhaseRule(c1, 0.5, 2, 1'000'000).confidence_radius(3),
              std::sqrt(13.815510557964274 / 30.0), 1e-14);
}

// Partial participation, every client's latest report aggregated
// (docs/algorithms.md): the proof of Lemma 1 with client n's guaranteed
// counts (1 - alpha) F_n (global) and (1 - alpha + M alpha) F_m (client m,
// global and local) bounds the mixed estimate's variance proxy by
//   (alpha + (1-alpha)/M)^2 / ((1-alpha+M alpha) F_m)
//     + ((1-alpha)/M)^2 sum_{n != m} 1 / ((1-alpha) F_n),
// and the radius is sqrt(c_B L) times its square root.
TEST(PhaseRule, LatestRadiusIsLemmaOnesBoundWithEachClientsSchedule) {
  constexpr double log_t = 13.815510557964274;  // log 1e6
  const double alpha = 0.5, m = 4.0;
  const std::vector<double> cumulative{8.0, 8.0, 4.0, 16.0};  // F_n; client 0 decides
  double mean_inverse = 0.0;
  for (const double f : cumulative) mean_inverse += 1.0 / f / m;  // H = 0.140625
  const double own = alpha + (1.0 - alpha) / m, other = (1.0 - alpha) / m;
  double variance = own * own / ((1.0 - alpha + m * alpha) * cumulative[0]);
  for (std::size_t n = 1; n < cumulative.size(); ++n) {
    variance += other * other / ((1.0 - alpha) * cumulative[n]);
  }
  // = 0.033203125 = (alpha / F_0 + (1 - alpha) H) / M = 0.1328125 / 4
  EXPECT_DOUBLE_EQ(variance, 0.033203125);
  const PhaseRule rule(PhaseRuleSpec{}, alpha, 4, 1'000'000);
  EXPECT_DOUBLE_EQ(rule.confidence_radius_latest(cumulative[0], mean_inverse),
                   std::sqrt(4.0 * log_t * variance));
  // every client with the same schedule F(p): Eqn. (8)'s B_p
  const double f2 = 6.0 * log_t;  // F(2) = (2 + 4) log T
  EXPECT_NEAR(rule.confidence_radius_latest(f2, 1.0 / f2), rule.confidence_radius(2), 1e-15);
  // a client that has never reported: no finite radius for alpha < 1 ...
  const double never = std::numeric_limits<double>::infinity();
  EXPECT_EQ(rule.confidence_radius_latest(8.0, never), never);
  // ... but at alpha = 1 the global means carry no weight: m's own schedule
  const PhaseRule local(PhaseRuleSpec{}, 1.0, 4, 1'000'000);
  EXPECT_EQ(local.confidence_radius_latest(8.0, never), local.confidence_radius_at(8.0));
  // alpha = 0: only the global term, the harmonic mean of the F_n
  const PhaseRule global(PhaseRuleSpec{}, 0.0, 4, 1'000'000);
  EXPECT_EQ(global.confidence_radius_latest(8.0, mean_inverse),
            global.confidence_radius_at(1.0 / mean_inverse));
  // large-M lengths: M times fewer pulls, M times the variance
  PhaseRuleSpec large;
  large.lengths = Lengths::large_m;
  EXPECT_DOUBLE_EQ(
      PhaseRule(large, alpha, 4, 1'000'000).confidence_radius_latest(cumulative[0], mean_inverse),
      2.0 * rule.confidence_radius_latest(cumulative[0], mean_inverse));
}

TEST(PhaseRule, RejectsBadParameters) {
  EXPECT_THROW(PhaseRule(PhaseRuleSpec{}, 1.5, 4, 1000), UserError);
  PhaseRuleSpec zero;
  zero.confidence_constant = 0.0;
  EXPECT_THROW(PhaseRule(zero, 0.5, 4, 1000), UserError);
}

TEST(PhaseRule, LargeMLengthsByHand) {
  // M = 4, f(1) = 2 log 1e6 = 27.631: n_l = ceil(0.5 * 27.63) = 14,
  // n_g = ceil(0.5 * 27.63 / 4) = ceil(3.45) = 4; phase 3 (f = 110.52): 56, 14
  PhaseRuleSpec params;
  params.lengths = Lengths::large_m;
  const PhaseRule rule(params, 0.5, 4, 1'000'000);
  EXPECT_EQ(rule.local_rounds(1), 14u);
  EXPECT_EQ(rule.global_rounds(1), 4u);
  EXPECT_EQ(rule.local_rounds(3), 56u);
  EXPECT_EQ(rule.global_rounds(3), 14u);
  // a factor scales before the ceiling: 0.5 * 27.63 * 1.5 = 20.72 -> 21
  EXPECT_EQ(rule.local_rounds(1, 1.5), 21u);
  // the paper's lengths with a factor: ceil(0.5 * 27.63 * 0.5) = 7
  EXPECT_EQ(PhaseRule(PhaseRuleSpec{}, 0.5, 4, 1'000'000).global_rounds(1, 0.5), 7u);
  // M times fewer samples per phase: the radius drops its M,
  // B_1 = sqrt(4 log 1e6 / F(1)) = sqrt(4 / 2) (F(1) = 2 log 1e6)
  EXPECT_NEAR(rule.confidence_radius(1), std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(rule.confidence_radius(1),
              2.0 * PhaseRule(PhaseRuleSpec{}, 0.5, 4, 1'000'000).confidence_radius(1), 1e-15);
}

TEST(Lengths, NamesRoundTripAndUnknownOnesAreRefused) {
  for (const auto l : {Lengths::paper, Lengths::large_m}) EXPECT_EQ(parse_lengths(to_string(l)), l);
  EXPECT_THROW(parse_lengths("small"), UserError);
}

}  // namespace
}  // namespace pfmab::theory
