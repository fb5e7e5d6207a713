#include "io/cell_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string_view>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/io/row_block.hpp"
#include "pfmab/stats/summary.hpp"

#include "fixtures.hpp"

namespace pfmab::io {
namespace {

constexpr std::size_t kCheckpoints = 3, kClients = 2;

sim::ReplicationResult make_result(std::uint64_t r, double regret_last) {
  sim::ReplicationResult result;
  const auto x = static_cast<double>(r);
  result.series.regret = {1.0, 2.0 + x, regret_last};
  result.series.local_reward = {0.5, x, -x};
  result.series.global_reward = {0.25, 2 * x, 3 * x};
  result.series.mixed_reward = {0.0, x / 2, x / 4};
  result.series.comm_count = {0, 8 * r, 8 * r + 8};
  result.fixed_arm = {static_cast<std::int32_t>(r % 3), -1};
  result.fixed_optimal = {1, 0};
  result.phases = r + 1;
  result.exploration_pulls = 100 * r;
  result.fixation_slot = r % 2 ? -1 : static_cast<std::int64_t>(r);
  return result;
}

TEST(RowBlock, HoldsResultsAsTheDatasetsLayThemOut) {
  RowBlock block;
  block.reset(4, kCheckpoints, kClients);
  for (std::uint64_t r = 0; r < 5; ++r) block.append(make_result(r, 10.0 * r));
  EXPECT_EQ(block.cell, 4u);
  EXPECT_EQ(block.rows, 5u);
  const auto& regret = std::get<sim::column_index("regret")>(block.values);
  ASSERT_EQ(regret.size(), 5 * kCheckpoints);
  // row-major: row 3's regret series is at [3 * checkpoints, 4 * checkpoints)
  EXPECT_EQ(regret[3 * kCheckpoints + 1], 5.0);
  EXPECT_EQ(std::get<sim::column_index("comm_count")>(block.values)[3 * kCheckpoints + 2], 32u);
  EXPECT_EQ(std::get<sim::column_index("fixed_arm")>(block.values)[3 * kClients], 0);
  EXPECT_EQ(std::get<sim::column_index("phases")>(block.values)[3], 4u);
  for (std::uint64_t r = 0; r < 5; ++r) {
    testing::expect_same_result(block.result(r), make_result(r, 10.0 * r),
                                "row " + std::to_string(r));
  }
  // reused for another cell: empty, and its rows are the new ones
  block.reset(1, kCheckpoints, kClients);
  EXPECT_EQ(block.rows, 0u);
  block.append(make_result(9, 1.0));
  EXPECT_EQ(block.result(0).series.regret, make_result(9, 1.0).series.regret);
}

// The statistics of every series and checkpoint equal those of the whole
// columns; a quantile the windows lost (rows in sorted order) is selected in
// the column the reader returns, and only such columns are read.
TEST(CellSummary, StatisticsOfEveryColumnAlsoWhenAWindowLosesItsRank) {
  for (const bool sorted : {false, true}) {
    SCOPED_TRACE(sorted ? "rows sorted by final regret" : "rows in random order");
    const std::uint64_t replications = 3000;
    std::mt19937_64 rng(17);
    std::normal_distribution<double> normal(500.0, 40.0);
    std::vector<double> last(replications);
    for (auto& v : last) v = normal(rng);
    if (sorted) std::sort(last.begin(), last.end());
    std::vector<sim::ReplicationResult> results;
    for (std::uint64_t r = 0; r < replications; ++r) results.push_back(make_result(r, last[r]));

    CellSummary summary(kCheckpoints, replications);
    RowBlock block;
    for (std::uint64_t first = 0; first < replications; first += 256) {
      block.reset(0, kCheckpoints, kClients);
      for (auto r = first; r < std::min(replications, first + 256); ++r) block.append(results[r]);
      summary.add(block);
    }
    EXPECT_EQ(summary.count(), replications);
    auto column = [&](std::size_t series, std::size_t checkpoint) {
      std::vector<double> values;
      sim::for_each_column([&](const auto& c) {
        if (c.name != std::string_view(CellSummary::kSeries[series])) return;
        for (const auto& r : results) {
          values.push_back(static_cast<double>(c.values(r)[checkpoint]));
        }
      });
      return values;
    };
    std::vector<std::pair<std::size_t, std::size_t>> read;
    const auto statistics = summary.statistics([&](std::size_t s, std::size_t j) {
      read.emplace_back(s, j);
      return column(s, j);
    });
    ASSERT_EQ(statistics.size(), CellSummary::kSeries.size());
    constexpr double levels[] = {0.5, 0.05, 0.95};
    for (std::size_t s = 0; s < CellSummary::kSeries.size(); ++s) {
      for (std::size_t j = 0; j < kCheckpoints; ++j) {
        SCOPED_TRACE(std::string(CellSummary::kSeries[s]) + " at checkpoint " + std::to_string(j));
        const auto values = column(s, j);
        const auto moments = stats::summarize(values);
        const auto q = stats::quantiles(values, levels);
        EXPECT_EQ(statistics[s][0][j], moments.mean);
        EXPECT_EQ(statistics[s][1][j], moments.std);
        EXPECT_EQ(statistics[s][2][j], moments.ci95_low);
        EXPECT_EQ(statistics[s][3][j], moments.ci95_high);
        EXPECT_EQ(statistics[s][4][j], q[0]);
        EXPECT_EQ(statistics[s][5][j], q[1]);
        EXPECT_EQ(statistics[s][6][j], q[2]);
      }
    }
    // Only columns whose windows lost a rank are read. Most series here grow
    // with the replication's index, so their rows come sorted and are read;
    // the final regret is read only when it is sorted too.
    if (sorted) {
      EXPECT_NE(std::find(read.begin(), read.end(), std::pair<std::size_t, std::size_t>{0, 2}),
                read.end());
    } else {
      EXPECT_TRUE(std::none_of(read.begin(), read.end(), [](const auto& sj) {
        return sj == std::pair<std::size_t, std::size_t>{0, 2};
      }));
    }
  }
}

}  // namespace
}  // namespace pfmab::io
