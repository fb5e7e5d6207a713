#include "io/cell_summary.hpp"

#include <algorithm>
#include <span>
#include <type_traits>

namespace pfmab::io {
namespace {

constexpr double kLevels[] = {0.5, 0.05, 0.95};  // median, q05, q95
// The values all quantile windows of a cell may hold together.
constexpr std::size_t kWindowBudget = std::size_t{16} << 20;

}  // namespace

CellSummary::CellSummary(std::size_t checkpoints, std::uint64_t replications) {
  const std::size_t windows = kSeries.size() * checkpoints * std::size(kLevels);
  const std::size_t capacity = kWindowBudget / (sizeof(double) * std::max<std::size_t>(windows, 1));
  for (std::size_t s = 0; s < kSeries.size(); ++s) {
    moments_.emplace_back(checkpoints);
    quantiles_.emplace_back(checkpoints, replications, kLevels, capacity);
  }
}

void CellSummary::add(const RowBlock& block) {
  std::size_t s = 0;  // kSeries index
  block.for_each_column([&](const auto& column, const auto& values) {
    if (column.summary != sim::Summary::statistics) return;
    std::span<const double> series;
    if constexpr (std::is_same_v<sim::ElementOf<decltype(column)>, double>) {
      series = values;
    } else {
      scratch_.assign(values.begin(), values.end());
      series = scratch_;
    }
    for (std::size_t r = 0; r < block.rows; ++r) {
      moments_[s].add_row(RowBlock::row_of(series, block.width(column), r));
    }
    quantiles_[s].add_rows(series);
    ++s;
  });
}

std::vector<std::vector<std::vector<double>>> CellSummary::statistics(
    const ColumnReader& column) const {
  std::vector<std::vector<std::vector<double>>> out(kSeries.size());
  for (std::size_t s = 0; s < kSeries.size(); ++s) {
    const auto moments = moments_[s].summaries();
    auto& stats = out[s];
    stats.assign(kStatistics.size(), std::vector<double>(moments.size()));
    for (std::size_t j = 0; j < moments.size(); ++j) {
      stats[0][j] = moments[j].mean;
      stats[1][j] = moments[j].std;
      stats[2][j] = moments[j].ci95_low;
      stats[3][j] = moments[j].ci95_high;
      std::vector<double> missed;  // levels the windows lost: from the whole column
      for (std::size_t l = 0; l < std::size(kLevels); ++l) {
        if (const auto q = quantiles_[s].quantile(j, l)) {
          stats[4 + l][j] = *q;
        } else {
          if (missed.empty()) missed = stats::quantiles(column(s, j), kLevels);
          stats[4 + l][j] = missed[l];
        }
      }
    }
  }
  return out;
}

}  // namespace pfmab::io
