#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace pfmab::stats {

// Mean, sample standard deviation and Student-t 95% confidence interval of
// the mean, summed in the order given (so a summary is as reproducible as
// its inputs). With one value the spread and interval are NaN; with none,
// everything is.
struct Summary {
  std::size_t count = 0;
  double mean = 0.0;
  double std = 0.0;
  double ci95_low = 0.0;
  double ci95_high = 0.0;
};

Summary summarize(std::span<const double> values);

// Quantiles of type 7 (numpy's default, Hyndman-Fan): with h = level (n - 1),
// the order statistics of ranks floor(h) and floor(h) + 1 (0-based, the
// latter capped at n - 1), `low` and `high`, interpolated linearly.
std::size_t quantile_rank(double level, std::size_t n);
double interpolate_quantile(double level, std::size_t n, double low, double high);

// The q-quantiles of `values` for each q in `levels`, by linear interpolation
// between order statistics (numpy's default, Hyndman-Fan type 7): exact, by
// selection (no sort), NaN for no values.
std::vector<double> quantiles(std::vector<double> values, std::span<const double> levels);

}  // namespace pfmab::stats
