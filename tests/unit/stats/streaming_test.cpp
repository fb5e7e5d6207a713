#include "pfmab/stats/streaming.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/stats/summary.hpp"

#include "fixtures.hpp"

namespace pfmab::stats {
namespace {

using testing::sorted_quantile;

constexpr double kLevels[] = {0.5, 0.05, 0.95, 0.0, 1.0, 0.25};
constexpr std::size_t kCapacity = 1 << 14;

// Feeds `columns` (each a whole column, equal lengths) to RunningQuantiles
// in blocks of `block` rows.
RunningQuantiles stream(const std::vector<std::vector<double>>& columns, std::size_t block,
                        std::size_t capacity = kCapacity) {
  const std::size_t rows = columns.front().size();
  RunningQuantiles quantiles(columns.size(), rows, kLevels, capacity);
  std::vector<double> values;
  for (std::size_t first = 0; first < rows; first += block) {
    values.clear();
    for (std::size_t r = first; r < std::min(rows, first + block); ++r) {
      for (const auto& column : columns) values.push_back(column[r]);
    }
    quantiles.add_rows(values);
  }
  return quantiles;
}

TEST(RunningMoments, MeanStdAndIntervalOfEachColumn) {
  // column 0: {1, 2, 3, 4}: mean 2.5, s^2 = 5/3, t_{0.975, 3} = 3.182446305284263;
  // column 1: {7, 7, 7, 7}: equal values have a spread of exactly 0
  RunningMoments moments(2);
  for (const double v : {1.0, 2.0, 3.0, 4.0}) moments.add_row(std::vector<double>{v, 7.0});
  const auto s = moments.summaries();
  EXPECT_EQ(moments.count(), 4u);
  EXPECT_DOUBLE_EQ(s[0].mean, 2.5);
  EXPECT_NEAR(s[0].std, std::sqrt(5.0 / 3.0), 1e-15);
  const double half = 3.182446305284263 * std::sqrt(5.0 / 3.0) / 2.0;
  EXPECT_NEAR(s[0].ci95_low, 2.5 - half, 1e-12);
  EXPECT_NEAR(s[0].ci95_high, 2.5 + half, 1e-12);
  EXPECT_EQ(s[1].mean, 7.0);
  EXPECT_EQ(s[1].std, 0.0);
  EXPECT_EQ(s[1].ci95_low, 7.0);
}

TEST(RunningMoments, TheMeanIsTheSumInOrderOverTheCount) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal(1e4, 30.0);
  std::vector<double> values(5000);
  for (auto& v : values) v = normal(rng);
  RunningMoments moments(1);
  double sum = 0.0, squares = 0.0;
  for (const double& v : values) {
    moments.add_row({&v, 1});
    sum += v;
  }
  const double mean = sum / static_cast<double>(values.size());
  for (const double v : values) squares += (v - mean) * (v - mean);
  const auto s = moments.summaries().front();
  EXPECT_EQ(s.mean, mean);  // bit for bit
  // Welford's sum against a second pass: equal to rounding (mean / sd is
  // 300 here; the two differ by about 1e-14 relative)
  EXPECT_NEAR(s.std, std::sqrt(squares / 4999.0), 1e-12 * s.std);
  EXPECT_EQ(summarize(values).mean, s.mean);
  EXPECT_EQ(summarize(values).std, s.std);
}

TEST(RunningMoments, NoValuesOrOneValue) {
  RunningMoments moments(1);
  EXPECT_TRUE(std::isnan(moments.summaries().front().mean));
  moments.add_row(std::vector<double>{5.0});
  const auto s = moments.summaries().front();
  EXPECT_EQ(s.mean, 5.0);
  EXPECT_TRUE(std::isnan(s.std));
  EXPECT_TRUE(std::isnan(s.ci95_high));
}

// The quantiles of exchangeable columns (every order equally likely), as a
// cell's replications are, equal a full sort exactly at every size, block
// size and shape; no window loses its rank.
TEST(RunningQuantiles, EqualASortForExchangeableColumns) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(100.0, 20.0);
  for (const std::size_t rows : {1, 2, 3, 10, 255, 256, 257, 1000, 4099, 30000}) {
    std::vector<double> gaussian(rows), ties(rows), equal(rows, 3.0), heavy(rows);
    for (auto& v : gaussian) v = normal(rng);
    for (auto& v : ties) v = std::floor(normal(rng) / 25.0);  // about 8 distinct values
    // a heavy tail and a point mass: most values equal, a few far away
    for (auto& v : heavy) v = normal(rng) > 130.0 ? std::exp(normal(rng) / 10.0) : 1.0;
    const std::vector<std::vector<double>> columns{gaussian, ties, equal, heavy};
    for (const std::size_t block : {std::size_t{1}, std::size_t{7}, std::size_t{256}}) {
      if (rows > 5000 && block < 256) continue;  // long enough at one block size
      const auto q = stream(columns, block);
      for (std::size_t c = 0; c < columns.size(); ++c) {
        for (std::size_t l = 0; l < std::size(kLevels); ++l) {
          const auto got = q.quantile(c, l);
          ASSERT_TRUE(got.has_value()) << "column " << c << ", rows " << rows << ", block " << block
                                       << ", level " << kLevels[l];
          EXPECT_EQ(*got, sorted_quantile(columns[c], kLevels[l]))
              << "column " << c << ", rows " << rows << ", block " << block << ", level "
              << kLevels[l];
        }
      }
    }
  }
}

// Sorted columns are not exchangeable: windows narrowed around the ranks an
// exchangeable column would have lose them. quantile() must then say so
// rather than answer a wrong value (the caller selects in the whole column).
TEST(RunningQuantiles, AWindowThatLostItsRankSaysSo) {
  const std::size_t rows = 20000;
  std::vector<double> ascending(rows), descending(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    ascending[r] = static_cast<double>(r);
    descending[r] = static_cast<double>(rows - r);
  }
  const auto q = stream({ascending, descending}, 256);
  int missed = 0;
  for (std::size_t c = 0; c < 2; ++c) {
    for (std::size_t l = 0; l < std::size(kLevels); ++l) {
      const auto got = q.quantile(c, l);
      if (!got) {
        ++missed;
        continue;
      }
      EXPECT_EQ(*got, sorted_quantile(c == 0 ? ascending : descending, kLevels[l]));
    }
  }
  // the median of a sorted column is far from where its first half put it
  EXPECT_GE(missed, 2);
}

// Memory: the windows hold about 6 sqrt(R) values each (twice the narrowed
// width plus 128, the width 12 standard deviations of the hypergeometric
// count, at most sqrt(R) / 4 at half way), never the whole column.
TEST(RunningQuantiles, HoldWhatTheirWidthNeedsNotTheColumn) {
  const std::size_t rows = 100000, columns = 4;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  RunningQuantiles q(columns, rows, kLevels, kCapacity);
  std::vector<double> values(256 * columns);
  std::size_t most = 0;
  for (std::size_t first = 0; first < rows; first += 256) {
    values.resize(std::min<std::size_t>(256, rows - first) * columns);
    for (auto& v : values) v = normal(rng);
    q.add_rows(values);
    most = std::max(most, q.held());
  }
  // per window: 2 x (12 x 80 + 6) + 128, and one block of 256 not yet narrowed
  const std::size_t windows = columns * std::size(kLevels);
  EXPECT_LE(most, windows * (2 * (12 * 80 + 6) + 128 + 256));
  EXPECT_LT(most, rows * columns / 20);
  for (std::size_t c = 0; c < columns; ++c) {
    for (std::size_t l = 0; l < std::size(kLevels); ++l) EXPECT_TRUE(q.quantile(c, l).has_value());
  }
}

// A capacity below what the width needs narrows the windows further: the
// memory stays within it (plus a block), and an answer is still exact.
TEST(RunningQuantiles, ACapacityBoundsTheMemory) {
  const std::size_t rows = 50000;
  std::mt19937_64 rng(9);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> column(rows);
  for (auto& v : column) v = normal(rng);
  constexpr std::size_t capacity = 600;
  RunningQuantiles q(1, rows, kLevels, capacity);
  std::size_t most = 0;
  for (std::size_t first = 0; first < rows; first += 100) {
    q.add_rows(std::span(column).subspan(first, 100));
    most = std::max(most, q.held());
  }
  EXPECT_LE(most, std::size(kLevels) * (capacity + 100));
  for (std::size_t l = 0; l < std::size(kLevels); ++l) {
    if (const auto got = q.quantile(0, l)) EXPECT_EQ(*got, sorted_quantile(column, kLevels[l]));
  }
}

}  // namespace
}  // namespace pfmab::stats
