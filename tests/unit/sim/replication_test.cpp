#include "pfmab/sim/replication.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/model/means_table.hpp"

#include "fixtures.hpp"

namespace pfmab::sim {
namespace {

using testing::instance_of;

// Noiseless (sigma = 0: every reward equals its mean) game, dyadic means so
// that every estimate is exact. M = 2, K = 2:
//   local  client 0: [1, 0]        client 1: [0, 0.75]      global [0.5, 0.375]
//   mixed (alpha = 1/2): c0 [0.75, 0.1875] gap 0.5625   c1 [0.25, 0.5625] gap 0.3125
// f(p) = 2 (constant), so n_g = ceil(0.5 * 2) = 1 and n_l = ceil(2 * 0.5 * 2) = 2.
// c_B = 0.015, L = log 1000: B_p = sqrt(0.015 * 6.907755 / (2 * 2p)):
//   2 B_1 = 0.32190 (c0 eliminates arm 1, c1 keeps both), 2 B_2 = 0.22762 (c1 drops arm 0).
// Both fidelity modes: with sigma = 0 a sum of n rewards is n mu either way.
struct Noiseless : ::testing::TestWithParam<Fidelity> {
  CellSpec spec() const {
    CellSpec s;
    s.fidelity = GetParam();
    s.instance = instance_of({{1.0, 0.0}, {0.0, 0.75}}, families::RewardFamily{"gaussian", {0.0}});
    s.alpha = 0.5;
    s.algorithm = algorithms::pf_ucb({.rule = {.schedule = {theory::ScheduleKind::constant, 2.0},
                                               .confidence_constant = 0.015}});
    s.horizon = 1000;
    s.comm_cost = 1.0;
    return s;
  }

  // Regret earned in each slot, summed over both clients, by hand:
  // phase 1, slots 1-6: both clients play g: 0 1, l: 0 1 0 1 (L_0 = L_1 = 6,
  //   no waiting); c0 loses 0.5625 on arm 1, c1 loses 0.3125 on arm 0;
  //   2 exchanges x 2 clients x C at slot 6.
  // phase 2, slots 7-12: c0 is fixed on arm 0: g: 0 1, then waits on arm 0 for
  //   L_max - L_0 = 6 - 2 = 4 slots; c1 plays g: 0 1, l: 0 1 0 1; 4 more at slot 12.
  // Then A is empty: both play their fixed (optimal) arms, no regret, no exchange.
  static double regret_in_slot(std::uint64_t slot) {
    constexpr std::array<double, 12> per_slot{
        0.3125, 0.5625, 0.3125, 0.5625, 0.3125, 0.5625 + 4,  // phase 1
        0.3125, 0.5625, 0.3125, 0.0,    0.3125, 0.0 + 4,     // phase 2
    };
    return slot <= per_slot.size() ? per_slot[slot - 1] : 0.0;
  }
  static double regret_after(std::uint64_t slots) {
    double sum = 0.0;
    for (std::uint64_t t = 1; t <= slots; ++t) sum += regret_in_slot(t);
    return sum;
  }
};

TEST_P(Noiseless, WholeTrajectoryMatchesHandComputation) {
  const Cell cell(spec(), 0);
  const auto r = run_replication(cell, 7, 0);
  ASSERT_EQ(r.series.regret.size(), cell.checkpoints().size());
  for (std::size_t i = 0; i < cell.checkpoints().size(); ++i) {
    SCOPED_TRACE(cell.checkpoints()[i]);
    EXPECT_EQ(r.series.regret[i], regret_after(cell.checkpoints()[i]));
    EXPECT_EQ(r.series.comm_count[i], cell.checkpoints()[i] >= 12  ? 8u
                                      : cell.checkpoints()[i] >= 6 ? 4u
                                                                   : 0u);
  }
  EXPECT_EQ(r.series.regret.back(), 12.125);  // 2.625 + 4 + 1.5 + 4
  EXPECT_EQ(r.phases, 2u);
  EXPECT_EQ(r.exploration_pulls, 12u + 2u + 6u);
  EXPECT_EQ(r.fixed_arm, (std::vector<std::int32_t>{0, 1}));
  EXPECT_TRUE(r.identified());
  EXPECT_EQ(r.fixation_slot, 12);
  // mixed reward: the oracle earns 0.75 + 0.5625 per slot; we lose the regret
  // without the 8 units of communication.
  EXPECT_DOUBLE_EQ(r.series.mixed_reward.back(), 1000 * (0.75 + 0.5625) - (12.125 - 8));
}

TEST_P(Noiseless, HorizonCutsTheSecondPhase) {
  auto s = spec();
  s.horizon = 9;  // phase 2 (slots 7-12) is cut after 3 of its slots
  // keep c_B L, hence every B_p and decision, as at T = 1000
  s.algorithm = algorithms::pf_ucb(
      {.rule = {.schedule = {theory::ScheduleKind::constant, 2.0},
                .confidence_constant = 0.015 * std::log(1000.0) / std::log(9.0)}});
  const Cell cell(s, 0);
  const auto r = run_replication(cell, 7, 0);
  EXPECT_EQ(r.series.regret.back(), regret_after(9));
  EXPECT_EQ(r.series.regret.back(), 6.625 + 0.3125 + 0.5625 + 0.3125);
  EXPECT_EQ(r.series.comm_count.back(), 4u);  // phase 2 never reaches the server
  EXPECT_EQ(r.phases, 2u);
  EXPECT_EQ(r.exploration_pulls, 12u);  // a cut phase's rewards are never drawn
  EXPECT_EQ(r.fixed_arm, (std::vector<std::int32_t>{0, -1}));
  EXPECT_FALSE(r.identified());
  EXPECT_EQ(r.fixation_slot, -1);
}

// 64-bit slot counts: after phase 2 both clients play their optimal arms for
// the rest of T = 1e12 slots (2e12 pulls, far past 2^32), and the series
// stay exact: the regret is phase 1 and 2's 12.125, and the mixed reward is
// the oracle's 1e12 * (0.75 + 0.5625) less the regret without communication.
TEST_P(Noiseless, ATrillionSlots) {
  auto s = spec();
  s.horizon = 1'000'000'000'000;
  s.algorithm = algorithms::pf_ucb(  // the same B_p
      {.rule = {.schedule = {theory::ScheduleKind::constant, 2.0},
                .confidence_constant = 0.015 * std::log(1000.0) / std::log(1e12)}});
  const Cell cell(s, 0);
  const auto r = run_replication(cell, 7, 0);
  EXPECT_EQ(cell.checkpoints().back(), 1'000'000'000'000u);
  EXPECT_EQ(r.series.regret.back(), 12.125);
  EXPECT_EQ(r.series.mixed_reward.back(), 1e12 * (0.75 + 0.5625) - 4.125);
  EXPECT_EQ(r.series.comm_count.back(), 8u);
  EXPECT_EQ(r.fixation_slot, 12);
}

TEST_P(Noiseless, AlphaOneHasNoGlobalExploration) {
  // The same game local-only: mixed = local; client 0 [1, 0] gap 1, client 1
  // [0, 0.75] gap 0.75. n_g = 0, n_l = ceil(2 * 1 * 2) = 4: each client plays
  // 0 1 0 1 0 1 0 1 (8 slots); 2 B_1 = 0.3219 < both gaps: both fix after phase 1.
  auto s = spec();
  s.alpha = 1.0;
  const auto r = run_replication(Cell(s, 0), 1, 0);
  EXPECT_EQ(r.exploration_pulls, 16u);
  EXPECT_EQ(r.phases, 1u);
  EXPECT_EQ(r.series.regret.back(), 4 * 1.0 + 4 * 0.75 + 2 * 2);
  EXPECT_EQ(r.fixed_arm, (std::vector<std::int32_t>{0, 1}));
}

INSTANTIATE_TEST_SUITE_P(Mode, Noiseless,
                         ::testing::Values(Fidelity::per_pull, Fidelity::aggregated),
                         [](const ::testing::TestParamInfo<Fidelity>& info) {
                           return info.param == Fidelity::per_pull ? "PerPull" : "Aggregated";
                         });

TEST(Replication, AlphaZeroClientsDecideAlike) {
  // With alpha = 0 every client's mixed estimate is the same global mean, so
  // all clients keep the same active set and fix the same arm.
  const auto table = model::read_means_csv(testing::shared_data("synthetic_4x9.csv"));
  CellSpec s;
  s.algorithm = algorithms::pf_ucb();
  s.instance = std::make_shared<const model::Instance>(table, families::RewardFamily{});
  s.alpha = 0.0;
  s.horizon = 10'000'000;  // long enough for alpha = 0 to converge
  const Cell cell(s, 0);
  for (std::uint64_t rep = 0; rep < 4; ++rep) {
    const auto r = run_replication(cell, 11, rep);
    ASSERT_NE(r.fixed_arm[0], -1);
    EXPECT_TRUE(std::all_of(r.fixed_arm.begin(), r.fixed_arm.end(),
                            [&](auto arm) { return arm == r.fixed_arm[0]; }));
    EXPECT_EQ(r.fixed_arm[0], 8);  // the global best arm
  }
}

TEST(Replication, SingleArmFixesAfterOnePhase) {
  // K = 1: nothing to learn, yet Algorithm 1 runs phase 1 before fixing the
  // arm, so the regret is the communication of one phase: 2 C M.
  CellSpec s;
  s.algorithm = algorithms::pf_ucb();
  s.instance = instance_of({{0.5}, {0.25}, {0.75}}, {});
  s.alpha = 0.5;
  s.horizon = 100'000;
  s.comm_cost = 2.0;
  const auto r = run_replication(Cell(s, 0), 3, 0);
  EXPECT_EQ(r.phases, 1u);
  EXPECT_EQ(r.series.regret.back(), 2 * 2.0 * 3);
  EXPECT_EQ(r.series.comm_count.back(), 6u);
  EXPECT_TRUE(r.identified());
}

TEST(Replication, SameKeySameResultsOtherReplicationOtherResults) {
  const auto table = model::read_means_csv(testing::shared_data("synthetic_4x9.csv"));
  CellSpec s;
  s.algorithm = algorithms::pf_ucb();
  s.instance = std::make_shared<const model::Instance>(table, families::RewardFamily{});
  s.horizon = 100'000;
  const Cell cell(s, 0);
  auto digest = [](const ReplicationResult& r) {
    Digest d;
    r.add_to(d);
    return d.value();
  };
  EXPECT_EQ(digest(run_replication(cell, 5, 3)), digest(run_replication(cell, 5, 3)));
  EXPECT_NE(digest(run_replication(cell, 5, 3)), digest(run_replication(cell, 5, 4)));
  EXPECT_NE(digest(run_replication(cell, 5, 3)), digest(run_replication(cell, 6, 3)));
}

}  // namespace
}  // namespace pfmab::sim
