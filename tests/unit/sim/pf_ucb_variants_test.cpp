// PF-UCB's variants as whole replications: participation, the enhanced
// lengths, the authors'-code rules, the large-M lengths, an algorithm run
// with another alpha than the regret's.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/sim/replication.hpp"
#include "pfmab/util/digest.hpp"

#include "fixtures.hpp"

namespace pfmab::sim {
namespace {

using algorithms::Preset;
using testing::instance_of;
using testing::synthetic_instance;

std::uint64_t digest(const ReplicationResult& r) {
  Digest d;
  r.add_to(d);
  return d.value();
}

// The digests of replications [0, count) of `spec`.
std::vector<std::uint64_t> digests(const CellSpec& spec, std::uint64_t count) {
  const Cell cell(spec, 0);
  std::vector<std::uint64_t> out;
  for (std::uint64_t r = 0; r < count; ++r) out.push_back(digest(run_replication(cell, 9, r)));
  return out;
}

class EveryMode : public ::testing::TestWithParam<Fidelity> {
 protected:
  CellSpec synthetic_spec(double alpha) const {
    CellSpec s;
    s.algorithm = algorithms::pf_ucb();
    s.instance = synthetic_instance();
    s.alpha = alpha;
    s.horizon = 200'000;
    s.fidelity = GetParam();
    return s;
  }
};

// ---------------------------------------------------------------------------
// Participation

TEST_P(EveryMode, EveryClientTakingPartIsPlainPfUcbBitForBit) {
  for (const auto preset : {Preset::paper, Preset::authors_code}) {
    auto plain = synthetic_spec(0.5);
    plain.algorithm = algorithms::pf_ucb({.preset = preset});
    auto q_one = plain;
    q_one.participation.probability = 1.0;
    auto s_all = plain;
    s_all.participation.clients = 4;  // S = M
    const auto expected = digests(plain, 6);
    EXPECT_EQ(digests(q_one, 6), expected);
    EXPECT_EQ(digests(s_all, 6), expected);
    auto s_three = plain;
    s_three.participation.clients = 3;
    EXPECT_NE(digests(s_three, 6), expected);  // and the comparison can fail
  }
}

TEST_P(EveryMode, ParticipantsAloneAreChargedAndAggregated) {
  auto s = synthetic_spec(0.5);
  s.participation.clients = 2;
  const Cell cell(s, 0);
  for (std::uint64_t rep = 0; rep < 5; ++rep) {
    const auto r = run_replication(cell, 3, rep);
    // 2 exchanges for each of the S = 2 participants of every phase that
    // completed (the horizon may have cut the last one)
    const auto comm = r.series.comm_count.back();
    EXPECT_TRUE(comm == 4 * r.phases || comm == 4 * (r.phases - 1))
        << comm << " exchanges in " << r.phases << " phases";
  }
  // q = 0.4: on average 0.4 M + (a nobody-phase is drawn again) participants
  auto q = synthetic_spec(0.5);
  q.participation.probability = 0.4;
  const Cell q_cell(q, 0);
  double exchanges = 0.0, phases = 0.0;
  for (std::uint64_t rep = 0; rep < 20; ++rep) {
    const auto r = run_replication(q_cell, 3, rep);
    exchanges += static_cast<double>(r.series.comm_count.back());
    phases += static_cast<double>(r.phases) - 1.0;  // at most one phase cut
  }
  // per phase, E[participants] = 0.4 M / (1 - 0.6^M) = 1.84 for M = 4; over
  // about 200 phases the mean is within 0.2 of it (binomial sd ~0.07)
  EXPECT_NEAR(exchanges / phases / 2.0, 1.6 / (1.0 - std::pow(0.6, 4)), 0.2);
}

// ---------------------------------------------------------------------------
// The enhanced algorithm (Sec. 6, Appendix A)

TEST_P(EveryMode, EnhancedIsPlainWhenItsFactorsAreOne) {
  for (const auto preset : {Preset::paper, Preset::authors_code}) {
    // alpha = 1: the factor is sqrt(D) / sqrt(D) = 1 whatever the gaps
    auto plain = synthetic_spec(1.0);
    plain.algorithm = algorithms::pf_ucb({.preset = preset});
    auto enhanced = plain;
    enhanced.algorithm = algorithms::pf_ucb({.preset = preset, .enhanced = true});
    EXPECT_EQ(digests(enhanced, 5), digests(plain, 5));
    // identical clients with noiseless rewards: every client's gap estimates
    // are the same, so every factor is exactly 1
    auto twins = plain;
    twins.instance = instance_of({{0.75, 0.5, 0.25}, {0.75, 0.5, 0.25}, {0.75, 0.5, 0.25}},
                                 families::RewardFamily{"gaussian", {0.0}});
    twins.alpha = 0.5;
    twins.horizon = 20'000;
    auto twins_enhanced = twins;
    twins_enhanced.algorithm = enhanced.algorithm;
    EXPECT_EQ(digests(twins_enhanced, 2), digests(twins, 2));
    // and on the synthetic game at alpha = 0.5 they differ
    auto half = synthetic_spec(0.5);
    half.algorithm = plain.algorithm;
    auto half_enhanced = half;
    half_enhanced.algorithm = enhanced.algorithm;
    EXPECT_NE(digests(half_enhanced, 5), digests(half, 5));
  }
}

// ---------------------------------------------------------------------------
// The authors'-code rules and the large-M lengths, by hand

// One client, arms [1, 0] (gaps [0, 1]: with M = 1 the mixed means are the
// local ones), noiseless, lambda = 4: n_g = ceil(0.5 * 4) = 2,
// n_l = ceil(0.5 * 4) = 2. c_B = 0.1, T = 1000: 2 B_1 = 2 sqrt(0.1 log 1000 / 4)
// = 0.83 < 1: arm 1 goes after phase 1 and arm 0 is fixed.
struct OneClientByHand : ::testing::TestWithParam<Fidelity> {
  static algorithms::PfUcbParams params(Preset preset) {
    return {.rule = {.schedule = {theory::ScheduleKind::constant, 4.0}, .confidence_constant = 0.1},
            .preset = preset};
  }
  CellSpec spec(Preset preset) const {
    CellSpec s;
    s.instance = instance_of({{1.0, 0.0}}, families::RewardFamily{"gaussian", {0.0}});
    s.alpha = 0.5;
    s.horizon = 1000;
    s.algorithm = algorithms::pf_ucb(params(preset));
    s.checkpoints = {0, 1000};  // every slot
    s.fidelity = GetParam();
    return s;
  }
};

TEST_P(OneClientByHand, AuthorsCodePullsEachArmInARowAlgorithmOneRoundRobin) {
  // regret after each of the first 8 slots, plus 2 exchanges (C = 1) at slot 8
  const std::vector<double> blocked{0, 0, 1, 2, 2, 2, 3, 4 + 2};      // 0 0 1 1 | 0 0 1 1
  const std::vector<double> round_robin{0, 1, 1, 2, 2, 3, 3, 4 + 2};  // 0 1 0 1 | 0 1 0 1
  for (const auto preset : {Preset::authors_code, Preset::paper}) {
    const Cell cell(spec(preset), 0);
    const auto r = run_replication(cell, 1, 0);
    const auto& want = preset == Preset::authors_code ? blocked : round_robin;
    for (std::size_t t = 0; t < want.size(); ++t) {
      EXPECT_EQ(r.series.regret[t], want[t]) << "slot " << t + 1;
    }
    EXPECT_EQ(r.series.regret.back(), 6.0);  // arm 0 from slot 9 on
    EXPECT_EQ(r.phases, 1u);
    EXPECT_EQ(r.fixed_arm, (std::vector<std::int32_t>{0}));
  }
}

TEST_P(OneClientByHand, LargeMLengths) {
  // M = 1: n_l = ceil(alpha f) = 2 as before, n_g = ceil((1 - alpha) f / M) = 2:
  // the same here; with two clients n_g halves (below).
  auto s = spec(Preset::paper);
  s.instance = instance_of({{1.0, 0.0}, {1.0, 0.0}}, families::RewardFamily{"gaussian", {0.0}});
  auto large_m = params(Preset::paper);
  large_m.rule.lengths = theory::Lengths::large_m;
  s.algorithm = algorithms::pf_ucb(large_m);
  const auto r = run_replication(Cell(s, 0), 1, 0);
  // per client: g: 0 1 (n_g = ceil(0.5 * 4 / 2) = 1), l: 0 0 1 1 as round
  // robin 0 1 0 1 (n_l = ceil(0.5 * 4) = 2): 6 slots, regret 3 per client
  EXPECT_EQ(r.exploration_pulls, 12u);
  EXPECT_EQ(r.series.regret[5], 2 * 3.0 + 2 * 2);  // and 2 exchanges per client at slot 6
  auto paper = s;
  paper.algorithm = algorithms::pf_ucb(params(Preset::paper));  // n_l = ceil(2 * 0.5 * 4) = 4
  EXPECT_EQ(run_replication(Cell(paper, 0), 1, 0).exploration_pulls, 2u * (2 * 2 + 2 * 4));
}

// ---------------------------------------------------------------------------
// An algorithm run with another alpha than the regret's

TEST_P(EveryMode, MisSpecifiedAlphaFixesItsOwnOptimaAndIsMeasuredAtTheCells) {
  // Run at alpha = 1 (local only), measured at 0.5: on the synthetic game each
  // client fixes its local best arm m, while its mixed best is arm 4 + m.
  auto s = synthetic_spec(0.5);
  s.algorithm_alpha = 1.0;
  const Cell cell(s, 0);
  EXPECT_EQ(cell.algorithm_alpha(), 1.0);
  EXPECT_EQ(cell.measured().alpha(), 0.5);
  double slope = 0.0;  // what the fixed arms lose per slot, at alpha = 0.5
  for (std::size_t m = 0; m < 4; ++m) slope += cell.measured().gap(m, m);
  ASSERT_GT(slope, 0.2);
  for (std::uint64_t rep = 0; rep < 4; ++rep) {
    const auto r = run_replication(cell, 5, rep);
    EXPECT_EQ(r.fixed_arm, (std::vector<std::int32_t>{0, 1, 2, 3}));
    EXPECT_EQ(r.fixed_optimal, (std::vector<std::uint8_t>{0, 0, 0, 0}));
    // after the last fixation the regret grows by exactly that slope
    const auto& grid = cell.checkpoints();
    const std::size_t last = grid.size() - 1;
    ASSERT_GT(grid[last - 1], static_cast<std::uint64_t>(r.fixation_slot));
    const double rate = (r.series.regret[last] - r.series.regret[last - 1]) /
                        static_cast<double>(grid[last] - grid[last - 1]);
    EXPECT_NEAR(rate, slope, 1e-9);
  }
}

INSTANTIATE_TEST_SUITE_P(Mode, EveryMode,
                         ::testing::Values(Fidelity::per_pull, Fidelity::aggregated),
                         [](const ::testing::TestParamInfo<Fidelity>& info) {
                           return info.param == Fidelity::per_pull ? "PerPull" : "Aggregated";
                         });
INSTANTIATE_TEST_SUITE_P(Mode, OneClientByHand,
                         ::testing::Values(Fidelity::per_pull, Fidelity::aggregated),
                         [](const ::testing::TestParamInfo<Fidelity>& info) {
                           return info.param == Fidelity::per_pull ? "PerPull" : "Aggregated";
                         });

}  // namespace
}  // namespace pfmab::sim
