#include "pfmab/algorithms/pf_ucb.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/util/error.hpp"

namespace pfmab::algorithms {
namespace {

using sim::Aggregation;
using Arms = std::vector<std::uint32_t>;

Arms active(const PfUcbClient& c) { return {c.active().begin(), c.active().end()}; }

// A client whose sample means are set by single exploration pulls.
PfUcbClient client_with_means(const std::vector<double>& means) {
  PfUcbClient c(means.size());
  for (std::uint32_t k = 0; k < means.size(); ++k) c.record(k, 1, means[k]);
  return c;
}

TEST(PfUcbClient, EliminationRuleOnHandMadeEstimates) {
  // local [0.75, 0.625, 0.25, 0.5], global [0.5, 0.5, 0.5, 0.25], alpha = 1/2:
  // mixed [0.625, 0.5625, 0.375, 0.375], gaps [0, 0.0625, 0.25, 0.25].
  const std::vector<double> global{0.5, 0.5, 0.5, 0.25};
  auto c = client_with_means({0.75, 0.625, 0.25, 0.5});
  c.update(global, 0.5, 0.125);  // 2 B_p = 0.25: a gap equal to it goes (Eqn. (8): >=)
  EXPECT_EQ(active(c), (Arms{0, 1}));
  EXPECT_FALSE(c.fixed_arm());

  auto keep = client_with_means({0.75, 0.625, 0.25, 0.5});
  keep.update(global, 0.5, std::nextafter(0.125, 1.0));  // just above: everything stays
  EXPECT_EQ(active(keep), (Arms{0, 1, 2, 3}));
}

TEST(PfUcbClient, FixesTheLastArmAndEmptiesItsActiveSet) {
  auto c = client_with_means({0.75, 0.625, 0.25, 0.5});
  c.update(std::vector<double>{0.5, 0.5, 0.5, 0.25}, 0.5, 0.03125);  // 2 B = 0.0625
  EXPECT_TRUE(c.active().empty());
  ASSERT_TRUE(c.fixed_arm());
  EXPECT_EQ(*c.fixed_arm(), 0u);
  EXPECT_EQ(c.exploit_arm(), 0u);
}

TEST(PfUcbClient, ExploitArmIsPreviousArgmaxOverActiveLowestOnTies) {
  PfUcbClient fresh(3);
  EXPECT_EQ(fresh.exploit_arm(), 0u);  // phase 1: all estimates 0, lowest index

  // alpha = 1 (local only): estimates [0.25, 0.75, 0.75]: tie between 1 and 2
  auto c = client_with_means({0.25, 0.75, 0.75});
  c.update(std::vector<double>{0, 0, 0}, 1.0, 10.0);  // radius too wide to eliminate
  EXPECT_EQ(active(c), (Arms{0, 1, 2}));
  EXPECT_EQ(c.exploit_arm(), 1u);
}

TEST(PfUcbClient, ExploitArmIgnoresEliminatedArms) {
  // mixed (alpha = 1) [0.5, 0.25, 0.75] with 2B = 0.5: arm 1 goes; arm 2 leads
  auto c = client_with_means({0.5, 0.25, 0.75});
  c.update(std::vector<double>{0, 0, 0}, 1.0, 0.25);
  EXPECT_EQ(active(c), (Arms{0, 2}));
  EXPECT_EQ(c.exploit_arm(), 2u);
  // new pulls make arm 1's sample mean the largest, but it is no longer active
  c.record(1, 1, 100.0);
  c.update(std::vector<double>{0, 0, 0}, 1.0, 10.0);
  EXPECT_EQ(c.exploit_arm(), 2u);
}

TEST(PfUcbClient, AlphaZeroDecidesOnGlobalMeansOnly) {
  auto c = client_with_means({1.0, 0.0});
  c.update(std::vector<double>{0.25, 0.75}, 0.0, 0.125);  // gap 0.5 >= 0.25
  ASSERT_TRUE(c.fixed_arm());
  EXPECT_EQ(*c.fixed_arm(), 1u);
}

TEST(PfUcbClient, SampleMeanIsSumOverCount) {
  PfUcbClient c(2);
  c.record(1, 4, 3.0);
  c.record(1, 4, 1.0);
  EXPECT_EQ(c.pulls(1), 8u);
  EXPECT_DOUBLE_EQ(c.sample_mean(1), 0.5);
}

TEST(PfUcbServer, AggregatesActiveArmsAndUnitesActiveSets) {
  std::vector<PfUcbClient> clients;
  clients.push_back(client_with_means({0.75, 0.25, 1.0}));
  clients.push_back(client_with_means({0.0, 0.75, 0.0}));
  PfUcbServer server(3, 2);
  const std::uint32_t both[] = {0, 1};
  server.aggregate(clients, both, Preset::paper, Aggregation::latest);
  EXPECT_EQ(server.global_means()[0], 0.375);
  EXPECT_EQ(server.global_means()[1], 0.5);
  EXPECT_EQ(server.global_means()[2], 0.5);

  // client 0 keeps {0, 2} (alpha = 1, 2B = 0.5 drops arm 1), client 1 fixes arm 1
  clients[0].update(server.global_means(), 1.0, 0.25);
  clients[1].update(server.global_means(), 1.0, 0.25);
  ASSERT_TRUE(clients[1].fixed_arm());
  server.unite(clients);
  EXPECT_EQ(Arms(server.active().begin(), server.active().end()), (Arms{0, 2}));
}

// ---------------------------------------------------------------------------
// Large-M lengths (Remark, Sec. 4) and the enhanced lengths' factor

TEST(PfUcbServer, LengthFactorIsOneForEqualGapsAndTheFormulaOtherwise) {
  PfUcbServer server(2, 3);
  // every gap 1 before any update: factor 1 for every client and arm
  for (std::size_t m = 0; m < 3; ++m) EXPECT_EQ(server.length_factor(m, 0, 0.3), 1.0);
  // arm 0: all three clients estimate 0.25: exactly 1 at any alpha
  // arm 1: gaps 0.25, 1, 0.0625 (roots 0.5, 1, 0.25): client 0 at alpha = 0.5:
  //   (0.5 * 0.5 + (0.5 / 3) * 1.75) / 0.5 = (0.25 + 0.291666...) / 0.5 = 1.0833...
  server.receive_gaps(0, {0.25, 0.25});
  server.receive_gaps(1, {0.25, 1.0});
  server.receive_gaps(2, {0.25, 0.0625});
  // the factors are of the gaps as last combined, at the end of a phase
  EXPECT_EQ(server.length_factor(0, 1, 0.5), 1.0);
  server.combine_gaps();
  for (const double alpha : {0.0, 0.1, 0.3, 0.5, 0.7, 1.0}) {
    EXPECT_EQ(server.length_factor(1, 0, alpha), 1.0) << alpha;
  }
  EXPECT_NEAR(server.length_factor(0, 1, 0.5), (0.25 + 1.75 / 6.0) / 0.5, 1e-15);
  // alpha = 1: local information only, the factor is 1 whatever the gaps
  EXPECT_EQ(server.length_factor(2, 1, 1.0), 1.0);
  // alpha = 0: the mean root over the clients' own root: 1.75 / 3 / 0.25
  EXPECT_NEAR(server.length_factor(2, 1, 0.0), 1.75 / 3.0 / 0.25, 1e-15);
}

TEST(PfUcbClient, GapEstimatesAreTheGapPlusTwoRadiiCappedAtOne) {
  EXPECT_EQ(PfUcbClient(2).gap_estimates(0.1), (std::vector<double>{1.0, 1.0}));  // no update yet
  // alpha = 1: mixed = local [0.75, 0.5, 0.0]; 2B = 0.125:
  // gaps + 2B = [0.125, 0.375, 0.875]
  auto c = client_with_means({0.75, 0.5, 0.0});
  c.update(std::vector<double>{0, 0, 0}, 1.0, 0.0625);
  EXPECT_EQ(c.gap_estimates(0.0625), (std::vector<double>{0.125, 0.375, 0.875}));
  // a wide radius caps them at 1
  EXPECT_EQ(c.gap_estimates(0.5), (std::vector<double>{1.0, 1.0, 1.0}));
}

// ---------------------------------------------------------------------------
// The authors'-code rules (docs/internals.md, "The authors' code")

TEST(PfUcbClient, AuthorsEliminationIsStrictAndAgainstEveryArm) {
  // alpha = 1: mixed = local [0.75, 0.5, 0.25], radius 0.125: the gaps are
  // [0, 0.25, 0.5] against 2B = 0.25. Algorithm 1 drops a gap of exactly 2B
  // (and so fixes arm 0); the authors' code drops k when its mixed mean
  // + 0.125 < 0.75 - 0.125, a gap above 2B strictly, and keeps arm 1.
  auto paper = client_with_means({0.75, 0.5, 0.25});
  paper.update(std::vector<double>{0, 0, 0}, 1.0, 0.125, Preset::paper);
  ASSERT_TRUE(paper.fixed_arm());
  EXPECT_EQ(*paper.fixed_arm(), 0u);
  auto authors = client_with_means({0.75, 0.5, 0.25});
  authors.update(std::vector<double>{0, 0, 0}, 1.0, 0.125, Preset::authors_code);
  EXPECT_EQ(active(authors), (Arms{0, 1}));
  EXPECT_FALSE(authors.fixed_arm());

  // The estimate of an arm out of A_m still counts, refreshed from its sums:
  // arm 0 goes (0.5 > 2B = 0.4 below arm 1), is pulled again (waiting, under
  // this rule) up to a mean of 1.0, and then eliminates both arms of A_m,
  // which leaves the client with no arm and none fixed.
  auto c = client_with_means({0.0, 0.5, 0.4});
  c.update(std::vector<double>{0, 0, 0}, 1.0, 0.2, Preset::authors_code);
  EXPECT_EQ(active(c), (Arms{1, 2}));
  c.record(0, 1, 2.0);
  c.update(std::vector<double>{0, 0, 0}, 1.0, 0.2, Preset::authors_code);
  EXPECT_TRUE(c.active().empty());
  EXPECT_FALSE(c.fixed_arm());
  // Algorithm 1 compares within A_m only: the same pulls leave it {1, 2}
  auto d = client_with_means({0.0, 0.5, 0.4});
  d.update(std::vector<double>{0, 0, 0}, 1.0, 0.2, Preset::paper);
  d.record(0, 1, 2.0);
  d.update(std::vector<double>{0, 0, 0}, 1.0, 0.2, Preset::paper);
  EXPECT_EQ(active(d), (Arms{1, 2}));
}

TEST(PfUcbClient, AuthorsWaitingArmIsTheCurrentArgmaxOverEveryArm) {
  // alpha = 0.5, global means as received [0.5, 0.0, 0.0] (0 before any update)
  auto c = client_with_means({0.25, 0.5, 0.125});
  EXPECT_EQ(c.exploit_arm_authors(0.5), 1u);  // phase 1: global 0: local argmax
  c.update(std::vector<double>{0.5, 0.0, 0.0}, 0.5, 10.0, Preset::authors_code);
  // values 0.5 * [0.25, 0.5, 0.125] + 0.5 * [0.5, 0, 0] = [0.375, 0.25, 0.0625]
  EXPECT_EQ(c.exploit_arm_authors(0.5), 0u);
  EXPECT_EQ(c.exploit_value(1, 0.5), 0.25);
  // a new reward moves the running mean at once: arm 1 to (0.5 + 1.5) / 2 = 1
  c.record(1, 1, 1.5);
  EXPECT_EQ(c.exploit_arm_authors(0.5), 1u);  // 0.5 beats 0.375
  // ties go to the lowest index: arm 0 at 0.5 * 0.25 + 0.25 = 0.375 vs
  // arm 2 made equal: 0.5 * x + 0 = 0.375 with x = 0.75 (sum 0.75 over 1)
  auto t = client_with_means({0.25, 0.0, 0.75});
  t.update(std::vector<double>{0.5, 0.0, 0.0}, 0.5, 10.0, Preset::authors_code);
  EXPECT_EQ(t.exploit_arm_authors(0.5), 0u);
}

TEST(PfUcbServer, ParticipantsAggregationAveragesThemOnlyAndUnderTheAuthorsRuleEveryArm) {
  std::vector<PfUcbClient> clients;
  clients.push_back(client_with_means({0.75, 0.25, 1.0}));
  clients.push_back(client_with_means({0.0, 0.75, 0.0}));
  clients.push_back(client_with_means({0.25, 0.25, 0.5}));
  PfUcbServer server(3, 3);
  const std::uint32_t first_and_last[] = {0, 2};
  server.aggregate(clients, first_and_last, Preset::paper, Aggregation::participants);
  EXPECT_EQ(server.global_means()[0], 0.5);  // (0.75 + 0.25) / 2: client 1 is absent
  EXPECT_EQ(server.global_means()[2], 0.75);
  // Algorithm 1 aggregates the arms of A only; the authors' server every arm
  clients[0].update(server.global_means(), 1.0, 0.3);  // drops arm 1 (0.75 below 1.0)
  clients[1].update(server.global_means(), 1.0, 10.0);
  clients[2].update(server.global_means(), 1.0, 0.1);  // drops 0 and 1 (0.25 below 0.5)
  clients[1].update(server.global_means(), 1.0, 0.0);  // fixes arm 1
  server.unite(clients);
  EXPECT_EQ(Arms(server.active().begin(), server.active().end()), (Arms{0, 2}));
  clients[1].record(1, 1, 0.25);  // client 1's arm-1 mean: 0.5
  const std::uint32_t all[] = {0, 1, 2};
  auto paper = server;
  paper.aggregate(clients, all, Preset::paper, Aggregation::participants);
  EXPECT_EQ(paper.global_means()[1], 0.25);  // not in A: left as it was
  server.aggregate(clients, all, Preset::authors_code, Aggregation::participants);
  EXPECT_EQ(server.global_means()[1], (0.25 + 0.5 + 0.25) / 3.0);
}

// Three clients, two arms. Phase 1: clients 0 and 1 report (client 2 has
// never taken part, so the means are over the two reports). Phase 2: 0 and 2
// take part; client 1, absent, counts with what it sent in phase 1 even
// though its own means have moved since.
TEST(PfUcbServer, LatestAggregationCountsAbsentClientsWithTheMeansTheyLastSent) {
  std::vector<PfUcbClient> clients;
  clients.push_back(client_with_means({0.75, 0.25}));
  clients.push_back(client_with_means({0.0, 0.75}));
  clients.push_back(client_with_means({0.25, 0.5}));
  PfUcbServer latest(2, 3);
  const std::uint32_t first_two[] = {0, 1};
  latest.aggregate(clients, first_two, Preset::paper, Aggregation::latest);
  EXPECT_EQ(latest.global_means()[0], 0.375);  // (0.75 + 0) / 2
  EXPECT_EQ(latest.global_means()[1], 0.5);    // (0.25 + 0.75) / 2
  auto participants_only = latest;
  clients[0].record(0, 1, 0.25);  // client 0's arm 0: (0.75 + 0.25) / 2 = 0.5
  clients[1].record(1, 1, 0.25);  // client 1's arm 1 now 0.5, but it is absent
  const std::uint32_t first_and_last[] = {0, 2};
  latest.aggregate(clients, first_and_last, Preset::paper, Aggregation::latest);
  EXPECT_EQ(latest.global_means()[0], 0.25);  // (0.5 + 0 (stale) + 0.25) / 3
  EXPECT_EQ(latest.global_means()[1], 0.5);   // (0.25 + 0.75 (stale, not 0.5) + 0.5) / 3
  participants_only.aggregate(clients, first_and_last, Preset::paper, Aggregation::participants);
  EXPECT_EQ(participants_only.global_means()[0], 0.375);  // (0.5 + 0.25) / 2
  EXPECT_EQ(participants_only.global_means()[1], 0.375);  // (0.25 + 0.5) / 2
}

TEST(Presets, NamesRoundTripAndUnknownOnesAreRefused) {
  for (const auto p : {Preset::paper, Preset::authors_code})
    EXPECT_EQ(parse_preset(to_string(p)), p);
  EXPECT_THROW(parse_preset("authors"), UserError);
}

}  // namespace
}  // namespace pfmab::algorithms
