#include "pfmab/stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/distributions/students_t.hpp>

namespace pfmab::stats {

Summary summarize(std::span<const double> values) {
  Summary s;
  s.count = values.size();
  if (s.count == 0) {
    s.mean = s.std = s.ci95_low = s.ci95_high = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  double sum = 0.0;
  for (const double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.count);
  if (s.count < 2) {
    s.std = s.ci95_low = s.ci95_high = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  double squares = 0.0;
  for (const double v : values) squares += (v - s.mean) * (v - s.mean);
  const double n = static_cast<double>(s.count);
  s.std = std::sqrt(squares / (n - 1.0));
  const boost::math::students_t t(n - 1.0);
  const double half = boost::math::quantile(t, 0.975) * s.std / std::sqrt(n);
  s.ci95_low = s.mean - half;
  s.ci95_high = s.mean + half;
  return s;
}

std::vector<double> quantiles(std::vector<double> values, std::span<const double> levels) {
  std::vector<double> out;
  if (values.empty()) {
    out.assign(levels.size(), std::numeric_limits<double>::quiet_NaN());
    return out;
  }
  // Two order statistics per level, by selection: O(n) each, not a sort.
  for (const double q : levels) {
    const double h = q * static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(h));
    std::nth_element(values.begin(), values.begin() + below, values.end());
    const double low = values[below];
    const double high = below + 1 < values.size()
                            ? *std::min_element(values.begin() + below + 1, values.end())
                            : low;
    out.push_back(low + (h - static_cast<double>(below)) * (high - low));
  }
  return out;
}

}  // namespace pfmab::stats
