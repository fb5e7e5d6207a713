// The hand-out of an MPI run: every replication exactly once, in (cell,
// replication) order, in blocks of the stated size; rows back in hand-out
// order whatever order they arrive in; the window never keeps waiting the
// rank that holds the oldest block; a stop ends it.
#include "pfmab/mpi/block_handout.hpp"

#include <vector>

#include <gtest/gtest.h>

namespace pfmab::mpi {
namespace {

using sim::ReplicationRange;
using Status = BlockHandout::Status;

// Rows standing for block `id` (only its row count is read back).
io::RowBlock rows_of(const sim::Block& block) {
  io::RowBlock rows;
  rows.reset(block.cell, 1, 1);
  rows.rows = block.replications.count();
  return rows;
}

TEST(BlockHandout, BlockSizeIsAShareOfWhatIsLeftWithinOnePerThreadAndOneChunk) {
  EXPECT_EQ(BlockHandout::block_size(600, 2, 1), 150u);  // 600 / (2 x 2)
  EXPECT_EQ(BlockHandout::block_size(601, 2, 1), 151u);  // rounded up
  EXPECT_EQ(BlockHandout::block_size(3200, 2, 1), 256u);  // one output chunk at most
  EXPECT_EQ(BlockHandout::block_size(10, 2, 8), 8u);      // one per thread at least
  EXPECT_EQ(BlockHandout::block_size(5, 2, 8), 5u);       // never more than is left
  EXPECT_EQ(BlockHandout::block_size(1, 4, 1), 1u);
}

TEST(BlockHandout, EveryReplicationOnceInCellOrder) {
  // A resumed cell (starts at 37), an empty one (a finished cell), a short one.
  const std::vector<ReplicationRange> ranges{{37, 1000}, {500, 500}, {0, 3}, {0, 640}};
  BlockHandout handout(ranges, 2, 1);
  std::vector<ReplicationRange> seen(ranges.size(), {0, 0});
  std::vector<bool> started(ranges.size(), false);
  std::size_t last_cell = 0;
  for (std::uint64_t id = 0;; ++id) {
    const auto answer = handout.next(static_cast<int>(id % 2));
    if (answer.status == Status::done) break;
    ASSERT_EQ(answer.status, Status::block);
    EXPECT_EQ(answer.id, id);
    const auto& block = answer.block;
    ASSERT_LT(block.cell, ranges.size());
    EXPECT_GE(block.cell, last_cell) << "cells in order";
    last_cell = block.cell;
    if (!started[block.cell]) {
      EXPECT_EQ(block.replications.first, ranges[block.cell].first);
      seen[block.cell].first = block.replications.first;
      started[block.cell] = true;
    } else {
      EXPECT_EQ(block.replications.first, seen[block.cell].end) << "contiguous";
    }
    seen[block.cell].end = block.replications.end;
    const auto left = ranges[block.cell].end - block.replications.first;
    EXPECT_EQ(block.replications.count(), BlockHandout::block_size(left, 2, 1));
    if (block.replications.end == ranges[block.cell].end && left > 1) {
      EXPECT_EQ(block.replications.count(), 1u) << "a cell ends on a block of one per thread";
    }
    handout.finished(answer.id, rows_of(block));
    ASSERT_TRUE(handout.pop_in_order());
  }
  EXPECT_TRUE(handout.complete());
  EXPECT_FALSE(started[1]) << "an empty range hands out nothing";
  for (const std::size_t c : {0u, 2u, 3u}) EXPECT_EQ(seen[c], ranges[c]) << "cell " << c;
}

TEST(BlockHandout, RowsComeBackInHandOutOrder) {
  const std::vector<ReplicationRange> ranges{{0, 40}};
  BlockHandout handout(ranges, 1, 1);
  std::vector<sim::Block> blocks;
  for (auto answer = handout.next(0); answer.status == Status::block; answer = handout.next(0)) {
    blocks.push_back(answer.block);
  }
  ASSERT_GE(blocks.size(), 3u);
  // back in reverse: nothing can be written until block 0 is in
  for (auto id = blocks.size() - 1; id >= 1; --id) {
    handout.finished(id, rows_of(blocks[id]));
    EXPECT_FALSE(handout.pop_in_order()) << "block " << id << " is not the oldest";
  }
  EXPECT_FALSE(handout.complete());
  handout.finished(0, rows_of(blocks[0]));
  std::uint64_t next_first = 0;
  for (std::size_t id = 0; id < blocks.size(); ++id) {
    const auto next = handout.pop_in_order();
    ASSERT_TRUE(next);
    EXPECT_EQ(next->first.replications.first, next_first);
    EXPECT_EQ(next->second.rows, next->first.replications.count());
    next_first = next->first.replications.end;
  }
  EXPECT_EQ(next_first, 40u);
  EXPECT_FALSE(handout.pop_in_order());
  EXPECT_TRUE(handout.complete());
}

TEST(BlockHandout, AFullWindowWaitsEveryoneButTheHolderOfTheOldestBlock) {
  const std::vector<ReplicationRange> ranges{{0, 100'000}};
  BlockHandout handout(ranges, 2, 1);  // window: 16 x 2 = 32 blocks held
  ASSERT_EQ(handout.next(1).status, Status::block);  // rank 1 holds block 0, the oldest
  for (int i = 1; i < 32; ++i) {
    const auto answer = handout.next(0);
    ASSERT_EQ(answer.status, Status::block);
    handout.finished(answer.id, rows_of(answer.block));  // back, but behind block 0
  }
  EXPECT_EQ(handout.next(0).status, Status::wait);
  // The holder of the oldest block is never kept waiting: it may be the one
  // the run waits for (its pipeline may need a block to finish block 0).
  EXPECT_EQ(handout.next(1).status, Status::block);
  EXPECT_EQ(handout.next(0).status, Status::wait);
  handout.finished(0, rows_of({0, {0, 256}}));
  int popped = 0;
  while (handout.pop_in_order()) ++popped;
  EXPECT_EQ(popped, 32);  // blocks 0 to 31; block 32 is out with rank 1
  EXPECT_EQ(handout.next(0).status, Status::block);
}

TEST(BlockHandout, AStopHandsOutNothingMoreAndCompletesOnceAllAreBack) {
  const std::vector<ReplicationRange> ranges{{0, 1000}};
  BlockHandout handout(ranges, 2, 1);
  const auto first = handout.next(0);
  const auto second = handout.next(1);
  handout.stop();
  EXPECT_EQ(handout.next(0).status, Status::done);
  EXPECT_FALSE(handout.complete()) << "two blocks are still out";
  handout.finished(second.id, rows_of(second.block));
  handout.finished(first.id, rows_of(first.block));
  EXPECT_TRUE(handout.pop_in_order());
  EXPECT_TRUE(handout.pop_in_order());
  EXPECT_TRUE(handout.complete());
}

}  // namespace
}  // namespace pfmab::mpi
