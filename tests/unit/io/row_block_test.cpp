// A row block sent to another process (an MPI rank's rows to rank 0) comes
// back field for field, with the time each row took; bytes that are not exactly one block are
// refused. A block appended to another (the part of a chunk the writer keeps) follows its rows.
#include "pfmab/io/row_block.hpp"

#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/sim/runner.hpp"

#include "fixtures.hpp"

namespace pfmab::io {
namespace {

struct RowBlockBytes : ::testing::Test {
  RowBlockBytes() {
    sim::CellSpec spec;
    spec.algorithm = algorithms::pf_ucb();
    spec.instance = testing::instance_of({{0.9, 0.1, 0.5}, {0.2, 0.8, 0.4}});
    spec.horizon = 5000;
    const std::vector<sim::Cell> cells{sim::Cell(spec, 3)};
    sim::RunOptions options;
    options.replications = 5;
    results = sim::run_sweep(cells, options)[0];
    block.reset(3, cells[0].checkpoints().size(), 2);
    for (const auto& r : results) block.append(r);
  }
  std::vector<sim::ReplicationResult> results;
  RowBlock block;
};

TEST_F(RowBlockBytes, RoundTripGivesEveryFieldOfEveryRow) {
  std::vector<char> bytes{'i', 'd'};  // a message's header before the block
  block.write_bytes(bytes);
  const auto back = RowBlock::read_bytes(std::span<const char>(bytes).subspan(2));
  EXPECT_EQ(back.cell, 3u);
  EXPECT_EQ(back.checkpoints, block.checkpoints);
  EXPECT_EQ(back.clients, 2u);
  ASSERT_EQ(back.rows, results.size());
  for (std::size_t r = 0; r < results.size(); ++r) {
    testing::expect_same_result(back.result(r), results[r], "row " + std::to_string(r));
    // the time is no column: compared here, not by expect_same_result
    const auto used = back.result(r).used;
    EXPECT_EQ(used.replications, 1u);
    EXPECT_GT(used.wall_seconds, 0.0);
    EXPECT_EQ(used.cpu_seconds, results[r].used.cpu_seconds);
    EXPECT_EQ(used.wall_seconds, results[r].used.wall_seconds);
  }
}

TEST_F(RowBlockBytes, TruncatedOrTrailingBytesAreRefused) {
  std::vector<char> bytes;
  block.write_bytes(bytes);
  for (const std::size_t cut : {std::size_t{1}, std::size_t{8}, bytes.size() / 2}) {
    EXPECT_THROW(RowBlock::read_bytes(std::span<const char>(bytes).first(bytes.size() - cut)),
                 std::runtime_error)
        << "cut " << cut;
  }
  bytes.push_back(0);
  EXPECT_THROW(RowBlock::read_bytes(bytes), std::runtime_error);
}

TEST_F(RowBlockBytes, ABlockAppendedToAnotherFollowsItsRows) {
  RowBlock first, second;
  first.reset(3, block.checkpoints, 2);
  second.reset(3, block.checkpoints, 2);
  for (std::size_t r = 0; r < results.size(); ++r) (r < 2 ? first : second).append(results[r]);
  first.append(second);
  ASSERT_EQ(first.rows, results.size());
  EXPECT_EQ(first.values, block.values);
  for (std::size_t r = 0; r < results.size(); ++r) {
    EXPECT_EQ(first.result(r).used.wall_seconds, results[r].used.wall_seconds) << r;
  }
}

TEST_F(RowBlockBytes, RowsWithoutATimeKeepTheirPlaceAsUnmeasured) {
  // rows read back from a file carry no time; rows appended after them keep theirs
  RowBlock read = block;
  read.used.clear();
  read.append(block);
  ASSERT_EQ(read.rows, 2 * results.size());
  for (std::size_t r = 0; r < results.size(); ++r) {
    EXPECT_EQ(read.result(r).used.replications, 0u) << r;
    EXPECT_EQ(read.result(results.size() + r).used.wall_seconds, results[r].used.wall_seconds);
  }
}

}  // namespace
}  // namespace pfmab::io
