// The cost model's shape: what each protocol's and fidelity's cost grows
// with, and the ratios between them a sweep's progress relies on before it
// has measured anything (the constants themselves are measured, see
// engine/src/sim/cost.cpp).
#include "pfmab/sim/cost.hpp"

#include <cmath>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace pfmab::sim {
namespace {

double cost_of(std::string_view algorithm, std::uint64_t horizon, std::size_t clients,
               std::size_t arms, Fidelity fidelity = Fidelity::aggregated,
               families::RewardFamily rewards = {}, double alpha = 0.5) {
  std::vector<std::vector<double>> rows(clients, std::vector<double>(arms));
  for (std::size_t m = 0; m < clients; ++m) {
    for (std::size_t k = 0; k < arms; ++k) rows[m][k] = static_cast<double>((m + k) % arms) / arms;
  }
  CellSpec spec;
  spec.instance = testing::instance_of(rows, rewards);
  spec.algorithm = testing::algorithm_named(algorithm);
  spec.horizon = horizon;
  spec.fidelity = fidelity;
  spec.alpha = alpha;
  return replication_cost(Cell(spec, 0));
}

// pf-alloc is registered only: its cell from an experiment's text.
double pf_alloc_cost(std::uint64_t horizon, std::size_t clients, std::size_t arms,
                     std::string_view rewards = "gaussian") {
  std::string rows;
  for (std::size_t m = 0; m < clients; ++m) {
    rows += m == 0 ? "[" : ", [";
    for (std::size_t k = 0; k < arms; ++k) {
      rows += fmt::format("{}{}", k == 0 ? "" : ", ", static_cast<double>((m + k) % arms) / arms);
    }
    rows += "]";
  }
  return replication_cost(testing::cells_of_experiment(
      fmt::format("horizon = {}\n[algorithm]\nname = \"pf-alloc\"\n[instance]\nmeans = "
                  "[{}]\nrewards = \"{}\"\n",
                  horizon, rows, rewards))[0]);
}

TEST(ReplicationCost, SlotBySlotGrowsWithTheSlotsOfEveryClientAndTheArms) {
  const double base = cost_of("local-ucb", 100'000, 10, 40);
  EXPECT_NEAR(cost_of("local-ucb", 1'000'000, 10, 40) / base, 10.0, 0.01);
  EXPECT_NEAR(cost_of("local-ucb", 100'000, 20, 40) / base, 2.0, 0.01);
  // per client and slot 26.4 + 1.2 K ns: 74.4 at K = 40, 38.4 at K = 10
  EXPECT_NEAR(cost_of("centralized-ucb", 100'000, 10, 10) / base, 38.4 / 74.4, 0.01);
  // 75 ms measured for MovieLens 10x40 at 10^5 slots
  // (tests/integration/data/slot_costs.csv)
  EXPECT_NEAR(base / 1e6, 75.0, 1.5);
}

TEST(ReplicationCost, KlUcbAndThompsonSamplingAddTheirOwnWorkToTheSlots) {
  // per client, slot and arm beyond UCB's index: kl-UCB's Newton solve 35
  // ns, and 85 e^(-t / 20,000) more at slot t; a posterior draw the family's
  // own: 3.6 ns for a normal, 18.4 for a Beta (bench/README.md)
  const double ucb = cost_of("local-ucb", 100'000, 4, 9);
  const double slots_arms = 4.0 * 100'000 * 9;
  const double settling = 85.0 * 20'000 * (1 - std::exp(-100'000.0 / 20'000)) * 4 * 9;
  EXPECT_NEAR(cost_of("local-kl-ucb", 100'000, 4, 9) - ucb, 35.0 * slots_arms + settling, 1.0);
  // measured at load 10: 51.6 ns at 10^5, 51.9 estimated; at 10^4, where the
  // indices move more, 110, 101.9 estimated
  EXPECT_NEAR((cost_of("local-kl-ucb", 100'000, 4, 9) - ucb) / slots_arms, 51.9, 0.1);
  EXPECT_NEAR((cost_of("local-kl-ucb", 10'000, 4, 9) - cost_of("local-ucb", 10'000, 4, 9)) /
                  (slots_arms / 10),
              101.9, 0.1);
  EXPECT_NEAR(cost_of("local-thompson", 100'000, 4, 9) - ucb, 3.6 * slots_arms, 1.0);
  EXPECT_NEAR(cost_of("centralized-thompson", 100'000, 4, 9) - ucb, 3.6 * slots_arms, 1.0);
  const families::RewardFamily bernoulli{"bernoulli"};
  EXPECT_NEAR(cost_of("local-thompson", 100'000, 4, 9, Fidelity::aggregated, bernoulli) -
                  cost_of("local-ucb", 100'000, 4, 9, Fidelity::aggregated, bernoulli),
              18.4 * slots_arms, 1.0);
}

TEST(ReplicationCost, CentralizedKlUcbSolvesRegionsForEveryClientOnlyStrictlyBetweenAlpha0And1) {
  // every pair's own index (as local-kl-ucb's), and 60 ns per
  // client, slot and arm for each client that solves its regions: all M at
  // 0 < alpha < 1, one at alpha = 0 (one region of each arm for all), none
  // at alpha = 1 (a client's region is its own index)
  const auto at = [](double alpha, std::uint64_t horizon = 100'000, std::size_t clients = 4,
                     std::size_t arms = 9) {
    return cost_of("centralized-kl-ucb", horizon, clients, arms, Fidelity::aggregated, {}, alpha);
  };
  const double ucb = cost_of("local-ucb", 100'000, 4, 9);
  const double slots_arms = 4.0 * 100'000 * 9;
  const double indices = cost_of("local-kl-ucb", 100'000, 4, 9) - ucb;
  EXPECT_NEAR(at(0.5) - ucb, indices + 60.0 * 4 * slots_arms, 1.0);
  EXPECT_NEAR(at(0.25), at(0.5), 1.0);
  EXPECT_NEAR(at(0.0) - ucb, indices + 60.0 * slots_arms, 1.0);
  EXPECT_NEAR(at(1.0), cost_of("local-kl-ucb", 100'000, 4, 9), 1.0);
  // the regions grow with the square of the clients: 20 x 10 at 10^4 about
  // 2.7 s measured at alpha 0.5 (bench/README.md), 2.7 s estimated
  EXPECT_NEAR(at(0.5, 10'000, 20, 10) / 1e9, 2.7, 0.1);
}

TEST(ReplicationCost, PhasedInAggregatedModeGrowsWithThePhasesOnly) {
  // about log2 T phases: 10^8 slots cost little more than 10^6
  const double million = cost_of("pf-ucb", 1'000'000, 10, 40);
  EXPECT_GT(cost_of("pf-ucb", 100'000'000, 10, 40), million);
  EXPECT_LT(cost_of("pf-ucb", 100'000'000, 10, 40), 2 * million);
  // about 100 us measured for MovieLens at 10^6
  EXPECT_NEAR(million / 1e3, 100.0, 30.0);
  // and a thousand times less than a baseline at the same T
  EXPECT_GT(cost_of("local-ucb", 1'000'000, 10, 40), 1000 * million);
}

TEST(ReplicationCost, PfAllocAddsAPlanForEveryPhaseButTheFirst) {
  // MovieLens 10x40 at 10^6: 10 plans after the first phase of 800 slots;
  // 2.2 ms measured (tests/integration/data/pf_alloc_costs.csv), where
  // PF-UCB's phases cost about 0.1 ms
  const double alloc = pf_alloc_cost(1'000'000, 10, 40);
  EXPECT_NEAR(alloc / 1e6, 2.2, 0.7);
  EXPECT_GT(alloc, 10 * cost_of("pf-ucb", 1'000'000, 10, 40));
  // a phase more for each doubling of T, each growing with M K
  const double one_phase = pf_alloc_cost(2'000'000, 10, 40) - alloc;
  EXPECT_NEAR(one_phase / 1e3, 0.62 * 10 * 40, 10.0);  // and a PF-UCB phase, 5.6 us
  EXPECT_GT(pf_alloc_cost(1'000'000, 20, 40), alloc);
}

TEST(ReplicationCost, PfAllocPlansWithAFamilysKlAtItsOwnCost) {
  // the synthetic game's size, 4 x 9, Bernoulli at 10^6: 12 plans after the
  // first phase of 180 slots, 140 us per client and arm each (74 ms
  // measured, docs/command-line.md); the Gaussian plan's 0.62 us
  const double kl = pf_alloc_cost(1'000'000, 4, 9, "bernoulli");
  EXPECT_NEAR(kl / 1e6, 12 * 0.14 * 4 * 9, 1.0);
  EXPECT_GT(kl, 100 * pf_alloc_cost(1'000'000, 4, 9));
  // beyond the KL program's size (10 x 39 pulls), Bernoulli plans as Gaussian
  EXPECT_EQ(pf_alloc_cost(1'000'000, 10, 40, "bernoulli"), pf_alloc_cost(1'000'000, 10, 40));
}

TEST(ReplicationCost, PerPullAPhasedAlgorithmDrawsItsSlots) {
  const double aggregated = cost_of("pf-ucb", 1'000'000, 10, 40);
  const double per_pull = cost_of("pf-ucb", 1'000'000, 10, 40, Fidelity::per_pull);
  // 2 ns per client and slot: 20 ms, about the 23 ms measured
  EXPECT_NEAR((per_pull - aggregated) / 1e6, 20.0, 0.01);
}

}  // namespace
}  // namespace pfmab::sim
