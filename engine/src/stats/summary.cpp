#include "pfmab/stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "pfmab/stats/streaming.hpp"

namespace pfmab::stats {

Summary summarize(std::span<const double> values) {
  RunningMoments moments(1);
  for (const double& v : values) moments.add_row({&v, 1});
  return moments.summaries().front();
}

std::size_t quantile_rank(double level, std::size_t n) {
  return static_cast<std::size_t>(std::floor(level * static_cast<double>(n - 1)));
}

double interpolate_quantile(double level, std::size_t n, double low, double high) {
  const double h = level * static_cast<double>(n - 1);
  return low + (h - std::floor(h)) * (high - low);
}

namespace {

// Order statistics `below` and `below` + 1 (the latter capped at the last)
// of the values in [first, last), by selection in place.
std::pair<double, double> select_pair(std::vector<double>::iterator first,
                                      std::vector<double>::iterator last, std::size_t below) {
  const auto at = first + static_cast<std::ptrdiff_t>(below);
  std::nth_element(first, at, last);
  return {*at, at + 1 < last ? *std::min_element(at + 1, last) : *at};
}

}  // namespace

std::vector<double> quantiles(std::vector<double> values, std::span<const double> levels) {
  const std::size_t n = values.size();
  std::vector<double> out;
  if (n == 0) {
    out.assign(levels.size(), std::numeric_limits<double>::quiet_NaN());
    return out;
  }
  // Selecting in the whole column costs about 12 ns per value and level
  // (mostly mispredicted branches). With many values, a sorted sample of
  // every (n / 256)-th value brackets each wanted rank instead; one
  // branch-free pass counts the values below the bracket and gathers those
  // inside, and the selection runs on the gathered few hundred. The result
  // is exact either way: when a bracket misses its rank (a sample unlike the
  // whole, e.g. from values in a periodic order) that level selects in the
  // whole column.
  // A column of ties (a checkpoint inside the deterministic first exploration
  // phase: every replication has the same value) needs no selection.
  const auto [smallest, largest] = std::minmax_element(values.begin(), values.end());
  if (*smallest == *largest) {
    out.assign(levels.size(), *smallest);
    return out;
  }
  constexpr std::size_t kSample = 256;
  if (n < 8 * kSample) {
    for (const double q : levels) {
      const auto below = quantile_rank(q, n);
      const auto [low, high] = select_pair(values.begin(), values.end(), below);
      out.push_back(interpolate_quantile(q, n, low, high));
    }
    return out;
  }
  std::vector<double> sample(kSample);
  for (std::size_t i = 0; i < kSample; ++i) sample[i] = values[i * (n / kSample)];
  std::sort(sample.begin(), sample.end());
  std::vector<double> inside(n);
  for (const double q : levels) {
    const auto below = quantile_rank(q, n);
    // The rank's place in the sample, widened by 3 standard deviations of
    // a sample quantile (binomial) and 2 places for rounding.
    const double place = (static_cast<double>(below) + 0.5) / static_cast<double>(n) * kSample;
    const double margin = 3.0 * std::sqrt(kSample * q * (1.0 - q)) + 2.0;
    const auto lo_place = static_cast<std::ptrdiff_t>(std::floor(place - margin));
    const auto hi_place = static_cast<std::ptrdiff_t>(std::ceil(place + margin));
    constexpr double inf = std::numeric_limits<double>::infinity();
    const double lo = lo_place < 0 ? -inf : sample[static_cast<std::size_t>(lo_place)];
    const double hi = hi_place >= static_cast<std::ptrdiff_t>(kSample)
                          ? inf
                          : sample[static_cast<std::size_t>(hi_place)];
    std::size_t less = 0, kept = 0;
    for (const double v : values) {
      less += v < lo;
      inside[kept] = v;
      kept += (v >= lo) & (v <= hi);
    }
    const std::size_t last_rank = std::min(below + 1, n - 1);
    const bool bracketed = less <= below && last_rank < less + kept;
    // lo == hi: every value gathered equals it (a column of ties, such as a
    // checkpoint inside the deterministic first exploration phase)
    const auto [low, high] =
        !bracketed ? select_pair(values.begin(), values.end(), below)
        : lo == hi ? std::pair{lo, lo}
                   : select_pair(inside.begin(), inside.begin() + static_cast<std::ptrdiff_t>(kept),
                                 below - less);
    out.push_back(interpolate_quantile(q, n, low, high));
  }
  return out;
}

}  // namespace pfmab::stats
