#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "pfmab/stats/summary.hpp"

namespace pfmab::stats {

// Mean, standard deviation and Student-t 95% interval of several columns
// whose values arrive a row at a time, in memory independent of the number
// of rows. The mean is the sum in arrival order over the count, as a
// two-pass mean is; the squared deviations are summed by Welford's update,
// which is stable without a second pass (its standard deviation is within
// about 1e-13, relative, of a two-pass one, and exactly 0 for equal values).
// The same rows in the same order give the same bits.
class RunningMoments {
 public:
  explicit RunningMoments(std::size_t columns)
      : sum_(columns, 0.0), mean_(columns, 0.0), squares_(columns, 0.0) {}

  void add_row(std::span<const double> row);
  std::uint64_t count() const { return count_; }
  // The summary of every column.
  std::vector<Summary> summaries() const;

 private:
  std::uint64_t count_ = 0;
  std::vector<double> sum_, mean_, squares_;
};

// Exact quantiles (type 7, as quantiles() gives them) of several columns
// whose values arrive a row at a time, when the number of rows is known in
// advance (a cell's replications), without keeping the columns.
//
// Each column and level keeps a window [lo, hi] around the order statistics
// its quantile interpolates: counts of the values below lo, equal to lo,
// equal to hi and above hi, and the values strictly between. Rows arrive in
// an order independent of their values (replications are exchangeable), so
// among the first n of R values the count of those below the final r-th
// order statistic is hypergeometric, mean n r / R. Whenever a window fills
// up it is narrowed to that mean plus or minus 6 of its standard deviations.
// A narrowing excludes a wanted value with probability below 1e-8, and the
// end result says so: quantile() then answers nothing and the caller selects
// in the whole column (the output file holds it). Exact either way.
//
// Memory: per window, twice the narrowed width (at most about 6 sqrt(R))
// plus 128, and never more than `capacity` values (narrower windows, more
// misses, beyond that) plus the rows added at once.
class RunningQuantiles {
 public:
  RunningQuantiles(std::size_t columns, std::uint64_t total, std::span<const double> levels,
                   std::size_t capacity);

  // The next rows, row-major: values.size() / columns of them.
  void add_rows(std::span<const double> values);
  std::uint64_t count() const { return count_; }
  // The values all windows hold (their memory, in doubles).
  std::size_t held() const;
  // After `total` rows: the quantile at levels[level] of `column`, or nothing
  // if its window lost a wanted order statistic.
  std::optional<double> quantile(std::size_t column, std::size_t level) const;

 private:
  // One level's windows over all columns (lo < hi always). The count below
  // lo is what the others leave of count_.
  struct Level {
    double q = 0.0;
    std::uint64_t rank = 0;  // of the lower order statistic interpolated
    std::vector<double> lo, hi;
    std::vector<std::uint64_t> at_lo, at_hi, above;
    std::vector<std::vector<double>> inside;  // strictly between lo and hi
    std::size_t limit = 0;                    // a window this full is narrowed
  };

  std::uint64_t below(const Level& level, std::size_t column) const;
  // The ranks among the first count_ values that the window of `level`
  // should keep: [first, last].
  std::pair<std::int64_t, std::int64_t> wanted_ranks(const Level& level) const;
  std::size_t trigger(const Level& level) const;
  // The values of column `j` in the rows being added.
  void add_column(Level& level, std::size_t j, std::span<const double> column);
  void narrow(Level& level, std::size_t column);
  // The order statistic of 0-based rank `rank` of a column, if the window
  // holds it.
  std::optional<double> order_statistic(const Level& level, std::size_t column,
                                        std::uint64_t rank) const;

  std::uint64_t total_;
  std::size_t capacity_;
  std::uint64_t count_ = 0;
  std::vector<Level> levels_;
  std::vector<double> columns_;  // a tile of columns of the rows being added
};

}  // namespace pfmab::stats
