#include "pfmab/stats/streaming.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include <boost/math/distributions/students_t.hpp>

namespace pfmab::stats {

void RunningMoments::add_row(std::span<const double> row) {
  assert(row.size() == sum_.size());
  ++count_;
  const double inverse = 1.0 / static_cast<double>(count_);
  for (std::size_t j = 0; j < row.size(); ++j) {
    const double v = row[j];
    sum_[j] += v;
    const double delta = v - mean_[j];
    mean_[j] += delta * inverse;
    squares_[j] += delta * (v - mean_[j]);
  }
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
// A window is narrowed once it holds 1.5 times its narrowed width plus this:
// every narrowing (linear in the values held) is paid for by at least as
// many new values.
constexpr std::size_t kSlack = 64;

// Counts each value of a row equal to lo, equal to hi or above hi, without a
// branch (most values fall there; two columns or more per instruction), and
// returns how many fell strictly between.
double count_ends(const double* __restrict row, const double* __restrict lo,
                  const double* __restrict hi, double* __restrict at_lo, double* __restrict at_hi,
                  double* __restrict above, std::size_t columns) {
  double kept = 0.0;
  for (std::size_t j = 0; j < columns; ++j) {
    const double v = row[j];
    at_lo[j] += v == lo[j] ? 1.0 : 0.0;
    at_hi[j] += v == hi[j] ? 1.0 : 0.0;
    above[j] += v > hi[j] ? 1.0 : 0.0;
    kept += (v > lo[j]) & (v < hi[j]) ? 1.0 : 0.0;
  }
  return kept;
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
    level.at_lo.assign(columns, 0.0);
    level.at_hi.assign(columns, 0.0);
    level.above.assign(columns, 0.0);
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
  return std::min(capacity_, width + width / 2 + kSlack);
}

double RunningQuantiles::below(const Level& level, std::size_t column) const {
  return static_cast<double>(count_) - level.at_lo[column] - level.at_hi[column] -
         level.above[column] - static_cast<double>(level.inside[column].size());
}

void RunningQuantiles::add_row(std::span<const double> row) {
  assert(count_ < total_);
  ++count_;
  const std::size_t columns = row.size();
  const double* __restrict values = row.data();
  for (auto& level : levels_) {
    assert(columns == level.lo.size());
    const double kept = count_ends(values, level.lo.data(), level.hi.data(), level.at_lo.data(),
                                   level.at_hi.data(), level.above.data(), columns);
    if (kept == 0.0) continue;
    const std::size_t limit = trigger(level);
    for (std::size_t j = 0; j < columns; ++j) {
      const double v = values[j];
      if (!(v > level.lo[j] && v < level.hi[j])) continue;
      auto& inside = level.inside[j];
      inside.push_back(v);
      if (inside.size() >= limit) narrow(level, j);
    }
  }
}

void RunningQuantiles::narrow(Level& level, std::size_t column) {
  const auto [first, last] = wanted_ranks(level);
  auto& v = level.inside[column];
  // Moves the values on the outer side of the value of rank `rank` out of
  // the window and makes that value its new end (lo if `lower`, else hi),
  // its ties counted at the end; a rank outside the values kept leaves the
  // end where it is.
  auto cut_at = [&](std::int64_t rank, bool lower) {
    const auto base = static_cast<std::int64_t>(below(level, column) + level.at_lo[column]);
    const auto k = rank - base;
    if (k < 0 || k >= static_cast<std::int64_t>(v.size())) return;
    std::nth_element(v.begin(), v.begin() + k, v.end());
    const double cut = v[static_cast<std::size_t>(k)];
    const auto outer_end =
        std::partition(v.begin(), v.end(), [&](double x) { return lower ? x < cut : x > cut; });
    const auto ties_end = std::partition(outer_end, v.end(), [&](double x) { return x == cut; });
    const auto ties = static_cast<double>(ties_end - outer_end);
    if (lower) {  // the values below move to below(), which counts them by elimination
      level.at_lo[column] = ties;
      level.lo[column] = cut;
    } else {
      level.above[column] += level.at_hi[column] + static_cast<double>(outer_end - v.begin());
      level.at_hi[column] = ties;
      level.hi[column] = cut;
    }
    v.erase(v.begin(), ties_end);
  };
  cut_at(first, true);
  cut_at(last, false);
}

std::optional<double> RunningQuantiles::order_statistic(const Level& level, std::size_t column,
                                                        std::uint64_t rank) const {
  const auto& inside = level.inside[column];
  // the counts are exact integers, so the comparisons are too
  auto r = static_cast<double>(rank) - below(level, column);
  if (r < 0.0) return std::nullopt;
  if (r < level.at_lo[column]) return level.lo[column];
  r -= level.at_lo[column];
  if (r < static_cast<double>(inside.size())) {
    auto values = inside;
    const auto k = static_cast<std::ptrdiff_t>(r);
    std::nth_element(values.begin(), values.begin() + k, values.end());
    return values[static_cast<std::size_t>(k)];
  }
  r -= static_cast<double>(inside.size());
  if (r < level.at_hi[column]) return level.hi[column];
  return std::nullopt;
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
