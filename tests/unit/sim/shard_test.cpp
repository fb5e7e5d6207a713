// The split of a sweep among the shards of a job array (sim::split): each
// cell's own split where every cell has a replication for every shard;
// otherwise the sweep's replications cut by estimated cost. Either way the
// shards joined end to end are every cell's replications in order.
#include "pfmab/sim/shard.hpp"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/util/error.hpp"

namespace pfmab::sim {
namespace {

using Ranges = std::vector<ReplicationRange>;

// Every shard's ranges, shard by shard.
std::vector<Ranges> all_shards(std::uint64_t count, const std::vector<std::uint64_t>& replications,
                               const std::vector<double>& costs) {
  std::vector<Ranges> shards;
  for (std::uint64_t i = 0; i < count; ++i) {
    shards.push_back(split({i, count}, replications, costs));
  }
  return shards;
}

// Shards 0 to N - 1 joined end to end are [0, R) of every cell, in order.
void expect_whole_run(const std::vector<Ranges>& shards,
                      const std::vector<std::uint64_t>& replications) {
  for (std::size_t c = 0; c < replications.size(); ++c) {
    std::uint64_t next = 0;
    for (const auto& shard : shards) {
      ASSERT_EQ(shard.size(), replications.size());
      EXPECT_EQ(shard[c].first, next) << "cell " << c;
      EXPECT_LE(shard[c].first, shard[c].end);
      next = shard[c].end;
    }
    EXPECT_EQ(next, replications[c]) << "cell " << c;
  }
}

TEST(ShardSplit, EachCellSplitOnItsOwnWhereEveryCellHasAReplicationForEveryShard) {
  const std::vector<std::uint64_t> replications{600, 7, 1000};
  const std::vector<double> costs{1.0, 1e6, 30.0};  // the costs do not enter
  for (std::uint64_t i = 0; i < 7; ++i) {
    const Shard shard{i, 7};
    const auto ranges = split(shard, replications, costs);
    for (std::size_t c = 0; c < replications.size(); ++c) {
      EXPECT_EQ(ranges[c], shard.range(replications[c]));
    }
  }
}

TEST(ShardSplit, ManySmallCellsAreSharedOutByTheirCost) {
  // 1,000 cells of 10 replications in 100 shards (the job array),
  // every fifth cell 50 times the others' cost
  std::vector<std::uint64_t> replications(1000, 10);
  std::vector<double> costs;
  for (std::size_t c = 0; c < 1000; ++c) costs.push_back(c % 5 == 0 ? 5000.0 : 100.0);
  const auto shards = all_shards(100, replications, costs);
  expect_whole_run(shards, replications);
  double whole = 0.0, costliest = 5000.0;
  for (std::size_t c = 0; c < 1000; ++c) whole += 10 * costs[c];
  for (const auto& shard : shards) {
    double cost = 0.0;
    for (std::size_t c = 0; c < shard.size(); ++c) cost += shard[c].count() * costs[c];
    // within one replication of an even share: the cuts fall between them
    EXPECT_NEAR(cost, whole / 100, costliest);
  }
}

TEST(ShardSplit, AShardHoldsWholeCellsAndNoneOfTheOthers) {
  // 4 cells of 2 in 4 shards, alike: a cell each
  const auto shards = all_shards(4, {2, 2, 2, 2}, {1.0, 1.0, 1.0, 1.0});
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t c = 0; c < 4; ++c) {
      EXPECT_EQ(shards[i][c].count(), i == c ? 2u : 0u) << "shard " << i << " cell " << c;
    }
  }
}

TEST(ShardSplit, OneReplicationCostlierThanAShardsShareLeavesShardsEmpty) {
  // the second cell's replication is 99% of the sweep: it alone is a shard's
  // work, and the shards its cost spans past hold nothing
  const std::vector<std::uint64_t> replications{1, 1, 1};
  const auto shards = all_shards(3, replications, {1.0, 198.0, 1.0});
  expect_whole_run(shards, replications);
  EXPECT_EQ(shards[0], (Ranges{{0, 1}, {0, 1}, {0, 0}}));
  EXPECT_EQ(shards[1], (Ranges{{1, 1}, {1, 1}, {0, 0}}));
  EXPECT_EQ(shards[2], (Ranges{{1, 1}, {1, 1}, {0, 1}}));
}

TEST(ShardSplit, OnlyTheCostsRatiosCount) {
  const std::vector<std::uint64_t> replications{3, 1, 4, 1, 5};
  const std::vector<double> costs{2.0, 7.0, 1.0, 8.0, 2.0};
  std::vector<double> scaled;
  for (const double c : costs) scaled.push_back(1e6 * c);
  EXPECT_EQ(all_shards(6, replications, costs), all_shards(6, replications, scaled));
  expect_whole_run(all_shards(6, replications, costs), replications);
}

TEST(ShardSplit, MoreShardsThanTheSweepHasReplicationsAreRefused) {
  EXPECT_NO_THROW(validate({0, 40}, 40));
  EXPECT_THROW(validate({0, 41}, 40), UserError);
}

}  // namespace
}  // namespace pfmab::sim
