#pragma once

#include <cstddef>
#include <span>

namespace pfmab::stats {

// Mean, sample standard deviation and Student-t 95% confidence interval of
// the mean, summed in the order given (so a summary is as reproducible as
// its inputs). With one value the spread and interval are NaN.
struct Summary {
  std::size_t count = 0;
  double mean = 0.0;
  double std = 0.0;
  double ci95_low = 0.0;
  double ci95_high = 0.0;
};

Summary summarize(std::span<const double> values);

}  // namespace pfmab::stats
