#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <pcg_random.hpp>

#include "pfmab/families/family.hpp"

namespace pfmab::families {

// Sampler::until_below_zero for rewards that are never negative (Bernoulli,
// Poisson, exponential), from the sampler's exact sums: pulls of its arm on
// the walk Y_n = y + sum_{i <= n} (X_i - theta), up to `slots` of them, never
// past the first n at which Y_n < 0. A pull lowers Y by at most theta, so
// floor(y / theta) - 1 pulls (one kept in hand against rounding) cannot take
// it below 0 whatever their rewards: that many in one sum_of draw, or a
// single pull when none is that safe. The caller decides again after each
// stretch.
template <class Sampler>
Stretch nonnegative_until_below_zero(const Sampler& rewards, pcg32& stream, double y, double theta,
                                     std::uint64_t slots) {
  const double safe = theta > 0.0 ? std::floor(y / theta) - 1.0 : static_cast<double>(slots);
  if (safe >= 1.0) {
    const auto n = std::min(slots, static_cast<std::uint64_t>(std::min(safe, 0x1p62)));
    return {n, rewards.sum_of(n, stream)};
  }
  return {1, rewards.sum_of(1, stream)};
}

}  // namespace pfmab::families
