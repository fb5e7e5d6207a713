#include "pfmab/stats/streaming.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include <boost/math/distributions/students_t.hpp>

namespace pfmab::stats {
namespace {

// The loops that touch every value a run summarises are built for wide
// vectors too, chosen at load time by the processor. Every lane does the
// same IEEE operations in the same order (and the engine is built without
// contraction to FMA), so each clone gives the same bits. (Not under a
// sanitizer: the clones' resolvers run before its runtime is up, and crash.)
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define PFMAB_VECTOR_CLONES
#else
#define PFMAB_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif

PFMAB_VECTOR_CLONES
void welford_row(const double* __restrict row, double* __restrict sum, double* __restrict mean,
                 double* __restrict squares, double inverse, std::size_t columns) {
  for (std::size_t j = 0; j < columns; ++j) {
    const double v = row[j];
    sum[j] += v;
    const double delta = v - mean[j];
    mean[j] += delta * inverse;
    squares[j] += delta * (v - mean[j]);
  }
}

}  // namespace

void RunningMoments::add_row(std::span<const double> row) {
  assert(row.size() == sum_.size());
  ++count_;
  welford_row(row.data(), sum_.data(), mean_.data(), squares_.data(),
              1.0 / static_cast<double>(count_), row.size());
}

std::vector<Summary> RunningMoments::summaries() const {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  const auto n = static_cast<double>(count_);
  // one Student-t quantile for every column: they share the count
  const double t =
      count_ < 2 ? nan : boost::math::quantile(boost::math::students_t(n - 1.0), 0.975);
  std::vector<Summary> out(sum_.size());
  for (std::size_t j = 0; j < out.size(); ++j) {
    auto& s = out[j];
    s.count = count_;
    s.mean = count_ == 0 ? nan : sum_[j] / n;
    s.std = s.ci95_low = s.ci95_high = nan;
    if (count_ < 2) continue;
    s.std = std::sqrt(squares_[j] / (n - 1.0));
    const double half = t * s.std / std::sqrt(n);
    s.ci95_low = s.mean - half;
    s.ci95_high = s.mean + half;
  }
  return out;
}

namespace {

// A narrowed window keeps this many standard deviations of the hypergeometric
// count on either side: a normal tail beyond 6 sd is 1e-9 (with the
// hypergeometric's lighter tails, less).
constexpr double kDeviations = 6.0;
// A window is narrowed once it holds twice its narrowed width plus this:
// every narrowing (linear in the values held) is paid for by at least as
// many new values, and as values arrive ever more rarely inside a window, a
// column and level is narrowed about log2(R) times in all.
constexpr std::size_t kSlack = 128;

// How the values of one column fall about a window (lo, hi).
struct EndCounts {
  double at_lo = 0.0, at_hi = 0.0, above = 0.0, inside = 0.0;
};

// Counts without a branch (most values fall on the window's ends or outside
// it), several values per instruction: sums of 0 and 1 are exact in any
// order, so they may be vectorised.
PFMAB_VECTOR_CLONES
EndCounts count_ends(const double* __restrict column, std::size_t rows, double lo, double hi) {
  double at_lo = 0.0, at_hi = 0.0, above = 0.0, inside = 0.0;
#pragma omp simd reduction(+ : at_lo, at_hi, above, inside)
  for (std::size_t r = 0; r < rows; ++r) {
    const double v = column[r];
    at_lo += v == lo ? 1.0 : 0.0;
    at_hi += v == hi ? 1.0 : 0.0;
    above += v > hi ? 1.0 : 0.0;
    inside += (v > lo) & (v < hi) ? 1.0 : 0.0;
  }
  return {at_lo, at_hi, above, inside};
}

}  // namespace

RunningQuantiles::RunningQuantiles(std::size_t columns, std::uint64_t total,
                                   std::span<const double> levels, std::size_t capacity)
    : total_(total), capacity_(std::max<std::size_t>(capacity, 4 * kSlack)) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  for (const double q : levels) {
    Level level;
    level.q = q;
    level.rank = total == 0 ? 0 : quantile_rank(q, total);
    level.lo.assign(columns, -inf);
    level.hi.assign(columns, inf);
    level.at_lo.assign(columns, 0);
    level.at_hi.assign(columns, 0);
    level.above.assign(columns, 0);
    level.inside.resize(columns);
    levels_.push_back(std::move(level));
  }
}

std::pair<std::int64_t, std::int64_t> RunningQuantiles::wanted_ranks(const Level& level) const {
  const auto n = static_cast<double>(count_), r = static_cast<double>(total_);
  // Among the first n of R values, the count of those of final rank below
  // k is hypergeometric: mean n k / R, variance n p (1 - p) (R - n) / (R - 1)
  // with p = k / R.
  auto deviation = [&](double k) {
    const double p = k / r;
    return total_ < 2 ? 0.0 : std::sqrt(n * p * (1.0 - p) * (r - n) / (r - 1.0));
  };
  const auto low_rank = static_cast<double>(level.rank);
  const auto high_rank = static_cast<double>(std::min<std::uint64_t>(level.rank + 1, total_ - 1));
  // lo must stay below the low order statistic: at most the count below it,
  // minus one; hi at or above the high one: at least the count up to it.
  auto first = static_cast<std::int64_t>(
      std::floor(n * low_rank / r - kDeviations * deviation(low_rank)) - 1.0);
  auto last = static_cast<std::int64_t>(
      std::ceil(n * (high_rank + 1.0) / r + kDeviations * deviation(high_rank + 1.0)) + 1.0);
  const auto most = static_cast<std::int64_t>(capacity_ / 2);
  if (last - first + 1 > most) {  // the capacity binds: a narrower window around the centre
    const auto centre = (first + last) / 2;
    first = centre - most / 2;
    last = centre + most / 2;
  }
  return {first, last};
}

std::size_t RunningQuantiles::trigger(const Level& level) const {
  const auto [first, last] = wanted_ranks(level);
  const auto width = static_cast<std::size_t>(last - first + 1);
  return std::min(capacity_, 2 * width + kSlack);
}

std::uint64_t RunningQuantiles::below(const Level& level, std::size_t column) const {
  return count_ - level.at_lo[column] - level.at_hi[column] - level.above[column] -
         level.inside[column].size();
}

void RunningQuantiles::add_rows(std::span<const double> values) {
  const std::size_t columns = levels_.front().lo.size();
  const std::size_t rows = values.size() / columns;
  assert(rows * columns == values.size() && count_ + rows <= total_);
  count_ += rows;
  for (auto& level : levels_) level.limit = trigger(level);
  // Column by column, so that a window's ends stay in registers while its
  // values stream past. The columns are copied out a tile at a time: each
  // row's tile is one cache line.
  constexpr std::size_t tile = 8;
  columns_.resize(tile * rows);
  for (std::size_t j0 = 0; j0 < columns; j0 += tile) {
    const std::size_t width = std::min(tile, columns - j0);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t k = 0; k < width; ++k) columns_[k * rows + r] = values[r * columns + j0 + k];
    }
    for (std::size_t k = 0; k < width; ++k) {
      const std::span<const double> column(columns_.data() + k * rows, rows);
      for (auto& level : levels_) add_column(level, j0 + k, column);
    }
  }
}

void RunningQuantiles::add_column(Level& level, std::size_t j, std::span<const double> column) {
  const double lo = level.lo[j], hi = level.hi[j];
  const auto counts = count_ends(column.data(), column.size(), lo, hi);
  level.at_lo[j] += static_cast<std::uint64_t>(counts.at_lo);
  level.at_hi[j] += static_cast<std::uint64_t>(counts.at_hi);
  level.above[j] += static_cast<std::uint64_t>(counts.above);
  if (counts.inside == 0.0) return;
  // kept without a branch: each value is stored, and the end moves past it
  // if it is inside
  auto& inside = level.inside[j];
  const std::size_t kept = inside.size();
  inside.resize(kept + column.size());
  std::size_t end = kept;
  for (const double v : column) {
    inside[end] = v;
    end += (v > lo) & (v < hi);
  }
  inside.resize(end);
  if (inside.size() >= level.limit) narrow(level, j);
}

void RunningQuantiles::narrow(Level& level, std::size_t column) {
  const auto [first, last] = wanted_ranks(level);
  assert(first < last);
  auto& v = level.inside[column];
  const auto size = static_cast<std::int64_t>(v.size());
  // The wanted ranks' places among the values kept; a rank outside them
  // leaves its end of the window where it is.
  const auto base = static_cast<std::int64_t>(below(level, column) + level.at_lo[column]);
  const auto k_lo = first - base, k_hi = last - base;
  const bool cut_lo = k_lo >= 0 && k_lo < size;
  bool cut_hi = k_hi >= 0 && k_hi < size;
  double lo = level.lo[column], hi = level.hi[column];
  if (cut_lo) {
    std::nth_element(v.begin(), v.begin() + k_lo, v.end());
    lo = v[static_cast<std::size_t>(k_lo)];
  }
  if (cut_hi) {  // k_hi > k_lo: among the values from k_lo on, if that was cut
    std::nth_element(v.begin() + (cut_lo ? k_lo : 0), v.begin() + k_hi, v.end());
    hi = v[static_cast<std::size_t>(k_hi)];
    cut_hi = hi > lo;  // ties across both ranks: hi stays, lo < hi always
    if (!cut_hi) hi = level.hi[column];
  }
  // One pass: the values below the new lo leave for below(), which counts
  // them by elimination, with the old lo's ties; those above the new hi for
  // above, with the old hi's ties; the new ends' ties are counted.
  std::uint64_t at_lo = cut_lo ? 0 : level.at_lo[column];
  std::uint64_t at_hi = cut_hi ? 0 : level.at_hi[column];
  std::uint64_t above = level.above[column] + (cut_hi ? level.at_hi[column] : 0);
  std::size_t kept = 0;
  for (const double x : v) {
    at_lo += x == lo;
    at_hi += x == hi;
    above += x > hi;
    v[kept] = x;
    kept += (x > lo) & (x < hi);
  }
  v.resize(kept);
  level.lo[column] = lo;
  level.hi[column] = hi;
  level.at_lo[column] = at_lo;
  level.at_hi[column] = at_hi;
  level.above[column] = above;
}

std::optional<double> RunningQuantiles::order_statistic(const Level& level, std::size_t column,
                                                        std::uint64_t rank) const {
  const auto& inside = level.inside[column];
  if (rank < below(level, column)) return std::nullopt;
  rank -= below(level, column);
  if (rank < level.at_lo[column]) return level.lo[column];
  rank -= level.at_lo[column];
  if (rank < inside.size()) {
    auto values = inside;
    const auto k = static_cast<std::ptrdiff_t>(rank);
    std::nth_element(values.begin(), values.begin() + k, values.end());
    return values[rank];
  }
  rank -= inside.size();
  if (rank < level.at_hi[column]) return level.hi[column];
  return std::nullopt;
}

std::size_t RunningQuantiles::held() const {
  std::size_t values = 0;
  for (const auto& level : levels_) {
    for (const auto& inside : level.inside) values += inside.size();
  }
  return values;
}

std::optional<double> RunningQuantiles::quantile(std::size_t column, std::size_t level) const {
  assert(count_ == total_);
  if (total_ == 0) return std::numeric_limits<double>::quiet_NaN();
  const auto& l = levels_[level];
  const auto low = order_statistic(l, column, l.rank);
  const auto high = order_statistic(l, column, std::min<std::uint64_t>(l.rank + 1, total_ - 1));
  if (!low || !high) return std::nullopt;
  return interpolate_quantile(l.q, total_, *low, *high);
}

}  // namespace pfmab::stats
