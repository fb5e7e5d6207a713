#include "pfmab/io/cell_summary.hpp"

#include <algorithm>

namespace pfmab::io {
namespace {

constexpr double kLevels[] = {0.5, 0.05, 0.95};  // median, q05, q95
// The values all quantile windows of a cell may hold together.
constexpr std::size_t kWindowBudget = std::size_t{16} << 20;

}  // namespace

CellSummary::CellSummary(std::size_t checkpoints, std::uint64_t replications)
    : scratch_(checkpoints) {
  const std::size_t windows = kSeries.size() * checkpoints * std::size(kLevels);
  const std::size_t capacity = kWindowBudget / (sizeof(double) * std::max<std::size_t>(windows, 1));
  for (std::size_t s = 0; s < kSeries.size(); ++s) {
    moments_.emplace_back(checkpoints);
    quantiles_.emplace_back(checkpoints, replications, kLevels, capacity);
  }
}

void CellSummary::add(const RowBlock& block) {
  const auto width = block.checkpoints;
  for (std::size_t r = 0; r < block.rows; ++r) {
    for (std::size_t s = 0; s < block.real.size(); ++s) {
      const auto row = RowBlock::row_of(block.real[s], width, r);
      moments_[s].add_row(row);
      quantiles_[s].add_row(row);
    }
    const auto comm = RowBlock::row_of(block.comm_count, width, r);
    std::copy(comm.begin(), comm.end(), scratch_.begin());
    moments_.back().add_row(scratch_);
    quantiles_.back().add_row(scratch_);
  }
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
