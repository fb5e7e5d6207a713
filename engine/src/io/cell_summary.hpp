#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "pfmab/io/row_block.hpp"
#include "pfmab/sim/columns.hpp"
#include "pfmab/stats/streaming.hpp"

namespace pfmab::io {

// The summary of one cell's checkpoint series over its replications: for
// each series (a column summarised with sim::Summary::statistics) and
// checkpoint, the mean, standard deviation, 95% interval,
// median, 5% and 95% quantiles (the output's summary dataset).
// Built as the replications arrive, in order, so that the summary is ready
// when the last one is in, without reading the rows back.
class CellSummary {
 public:
  // the names of the series, in table order
  static constexpr auto kSeries = [] {
    constexpr auto count = [] {
      std::size_t n = 0;
      sim::for_each_column([&](const auto& c) { n += c.summary == sim::Summary::statistics; });
      return n;
    }();
    std::array<const char*, count> names{};
    std::size_t s = 0;
    sim::for_each_column([&](const auto& c) {
      if (c.summary == sim::Summary::statistics) names[s++] = c.name;
    });
    return names;
  }();
  static constexpr std::array<const char*, 7> kStatistics = {
      "mean", "std", "ci95_low", "ci95_high", "median", "q05", "q95"};

  CellSummary(std::size_t checkpoints, std::uint64_t replications);

  // The block's rows, the next replications in order.
  void add(const RowBlock& block);
  std::uint64_t count() const { return moments_.front().count(); }

  // The whole column of series `series` (kSeries order) at a checkpoint.
  using ColumnReader = std::function<std::vector<double>(std::size_t series, std::size_t column)>;
  // Once every replication is in: statistics[series][statistic][checkpoint].
  // A quantile the streaming windows lost (rarely: see
  // stats::RunningQuantiles) is selected in its column, read by `column`.
  std::vector<std::vector<std::vector<double>>> statistics(const ColumnReader& column) const;

 private:
  std::vector<stats::RunningMoments> moments_;      // per series
  std::vector<stats::RunningQuantiles> quantiles_;  // per series
  std::vector<double> scratch_;                     // a block's integer series as doubles
};

}  // namespace pfmab::io
