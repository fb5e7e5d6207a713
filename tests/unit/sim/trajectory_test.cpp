#include "pfmab/sim/trajectory.hpp"

#include <vector>

#include <gtest/gtest.h>

#include "pfmab/sim/checkpoints.hpp"

namespace pfmab::sim {
namespace {

// One client, two arms with local means [1, 0]; measured at alpha = 1 the
// gaps are [0, 1]. Checkpoints at every slot of a short horizon.
struct OneClient : ::testing::Test {
  model::Instance instance{model::MeansTable{{{1.0, 0.0}}, {"test"}}, {}};
  model::MixedModel measured{instance, 1.0};
  std::vector<std::uint32_t> both{0, 1};

  // `rounds` round-robin rounds over both arms, then `wait` slots on arm 0
  ClientPlay phase(std::uint64_t rounds, std::uint64_t wait) const {
    ClientPlay play;
    sim::Run run;
    run.arms = both;
    run.rounds = rounds;
    play.runs.push_back(run);
    if (wait > 0) play.waiting.push_back({0, wait});
    return play;
  }
};

TEST_F(OneClient, AccountsRoundRobinWaitingAndCommunication) {
  const std::vector<std::uint64_t> grid{1, 2, 3, 4, 5, 6};
  Trajectory t(instance, measured, grid, 1.5);
  // a phase: 2 round-robin rounds over {0, 1} (arms 0 1 0 1), then 1 slot on arm 0
  t.advance(std::vector<ClientPlay>{phase(2, 1)}, 5, 2);
  EXPECT_EQ(t.now(), 5u);
  t.advance(std::vector<ClientPlay>{phase(0, 1)}, 1, 0);
  EXPECT_TRUE(t.finished());
  // gaps 0 1 0 1 0 | 0, and 2 exchanges x C = 1.5 charged at slot 5
  EXPECT_EQ(t.series().regret, (std::vector<double>{0, 1, 1, 2, 5, 5}));
  EXPECT_EQ(t.series().comm_count, (std::vector<std::uint64_t>{0, 0, 0, 0, 2, 2}));
  EXPECT_EQ(t.series().local_reward, (std::vector<double>{1, 1, 2, 2, 3, 4}));
  // global mean = local mean with one client; mixed at alpha = 1 likewise
  EXPECT_EQ(t.series().global_reward, t.series().local_reward);
  EXPECT_EQ(t.series().mixed_reward, t.series().local_reward);
}

TEST_F(OneClient, HorizonCutsAPhaseWithoutItsCommunication) {
  const std::vector<std::uint64_t> grid{2, 4};
  Trajectory t(instance, measured, grid, 1.0);
  t.advance(std::vector<ClientPlay>{phase(2, 1)}, 5, 2);  // 5 slots asked, 4 remain
  EXPECT_TRUE(t.finished());
  EXPECT_EQ(t.now(), 4u);
  EXPECT_EQ(t.series().regret, (std::vector<double>{1, 2}));
  EXPECT_EQ(t.series().comm_count, (std::vector<std::uint64_t>{0, 0}));
}

TEST_F(OneClient, PhaseEndingExactlyAtTheHorizonIsCharged) {
  const std::vector<std::uint64_t> grid{5};
  Trajectory t(instance, measured, grid, 1.0);
  t.advance(std::vector<ClientPlay>{phase(2, 1)}, 5, 2);
  EXPECT_EQ(t.series().regret, (std::vector<double>{4}));  // 2 pulls of arm 1 + 2 exchanges
  EXPECT_EQ(t.series().comm_count, (std::vector<std::uint64_t>{2}));
}

// Round robin over the arms still owed pulls, in index order, slot by slot:
// what Run::add_pulls must give for every prefix of a run of unequal counts.
std::vector<std::uint64_t> played_slot_by_slot(const Run& run, std::uint64_t elapsed,
                                               std::size_t arms) {
  std::vector<std::uint64_t> per_arm(arms, 0), owed(run.counts.begin(), run.counts.end());
  while (elapsed > 0) {
    for (std::size_t i = 0; i < owed.size() && elapsed > 0; ++i) {
      if (owed[i] == 0) continue;
      --owed[i];
      ++per_arm[run.arms[i]];
      --elapsed;
    }
  }
  return per_arm;
}

// Both the counts sorted on the stack (few arms) and on the heap (more than
// 64), every prefix from none to the whole run.
TEST(RunOfUnequalCounts, EveryPrefixIsRoundRobinOverTheArmsStillOwed) {
  for (const std::size_t n : {std::size_t{3}, std::size_t{70}}) {
    std::vector<std::uint32_t> arms(n);
    std::vector<std::uint64_t> counts(n);
    for (std::size_t i = 0; i < n; ++i) {
      arms[i] = static_cast<std::uint32_t>(n - 1 - i);  // not in index order
      counts[i] = (i * 7) % 5;                          // ties and zeros among them
    }
    sim::Run run;
    run.arms = arms;
    run.counts = counts;
    for (std::uint64_t elapsed = 0; elapsed <= run.slots(); ++elapsed) {
      std::vector<std::uint64_t> per_arm(n, 0);
      run.add_pulls(elapsed, per_arm.data());
      ASSERT_EQ(per_arm, played_slot_by_slot(run, elapsed, n))
          << n << " arms, " << elapsed << " slots";
    }
  }
}

TEST(CheckpointGrid, SortedUniqueWithinHorizonAndEndsAtT) {
  for (std::uint64_t horizon : {1ULL, 2ULL, 7ULL, 1000ULL, 1'000'000ULL, 1'000'000'000'000ULL}) {
    const auto grid = checkpoint_grid(horizon);
    ASSERT_FALSE(grid.empty());
    EXPECT_EQ(grid.back(), horizon);
    EXPECT_GE(grid.front(), 1u);
    for (std::size_t i = 1; i < grid.size(); ++i) EXPECT_LT(grid[i - 1], grid[i]);
  }
  EXPECT_EQ(checkpoint_grid(1), (std::vector<std::uint64_t>{1}));
  // log-spaced points reach down to the first slots; linear ones tile [0, T]
  const auto grid = checkpoint_grid(1'000'000, 40, 20);
  EXPECT_EQ(grid.front(), 1u);
  EXPECT_TRUE(std::binary_search(grid.begin(), grid.end(), 50'000u));
  EXPECT_TRUE(std::binary_search(grid.begin(), grid.end(), 1000u));  // 10^(3) = 10^(6 * 20/40)
}

}  // namespace
}  // namespace pfmab::sim
