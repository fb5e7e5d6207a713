#pragma once

#include <cstdint>

#include <pcg_random.hpp>

namespace pfmab::rng {

// The first pull n in [1, length] at which a Gaussian random walk from
// `start` >= 0 with steps N(drift, sigma^2) is below 0, and its value then;
// or {0, value at `length`} if it stays at or above 0. Exact in law (the
// walk is a Brownian motion seen at whole times). A start below 0 is taken
// as 0.
struct FirstPassage {
  std::uint64_t step = 0;  // 0: none within the length
  double value = 0.0;      // of the walk at `step`, or at `length`
};
FirstPassage first_passage_below_zero(pcg32& stream, double start, double drift, double sigma,
                                      std::uint64_t length);

}  // namespace pfmab::rng
