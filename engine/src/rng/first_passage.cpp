#include "pfmab/rng/first_passage.hpp"

#include <algorithm>
#include <cmath>

#include "pfmab/rng/samplers.hpp"

namespace pfmab::rng {

namespace {

// The first time s at which a Brownian motion with variance sigma^2 per unit
// time and drift `drift`, started at a > 0, hits 0, given that it does:
// inverse Gaussian with mean a / |drift| and shape a^2 / sigma^2 (with the
// drift away from 0, conditioning on the hit reverses it), Levy for no
// drift. Michael, Schucany and Haas (1976), in the form without
// cancellation.
double hitting_time(pcg32& stream, double a, double drift, double sigma) {
  if (a <= 0.0) return 0.0;
  UnitNormal normal;
  const double z = normal(stream);
  const double shape = a * a / (sigma * sigma);
  if (drift == 0.0) return shape / (z * z);
  const double mean = a / std::abs(drift);
  const double r = mean * z * z / (2.0 * shape);
  const double x = mean / (1.0 + r + std::sqrt(r * (2.0 + r)));
  return uniform01(stream) * (mean + x) <= mean ? x : mean * mean / x;
}

}  // namespace

FirstPassage first_passage_below_zero(pcg32& stream, double start, double drift, double sigma,
                                      std::uint64_t length) {
  start = std::max(start, 0.0);
  if (length == 0) return {0, start};
  if (sigma == 0.0) {  // a straight line
    const double end = start + drift * static_cast<double>(length);
    if (end >= 0.0) return {0, end};
    // end < 0: the line crosses within `length` slots (the min guards rounding)
    const auto step = static_cast<std::uint64_t>(
                          std::min(std::floor(start / -drift), static_cast<double>(length - 1))) +
                      1;
    return {step, start + drift * static_cast<double>(step)};
  }
  UnitNormal normal;
  const double total = static_cast<double>(length);
  const double end = start + drift * total + sigma * std::sqrt(total) * normal(stream);
  // From whole time `now` (value y >= 0) to `length` (value `end`) the walk is
  // a Brownian bridge; by the time change s = t T / (T - t) its first hit of
  // 0 is that of a Brownian motion from y with drift end / T. After the hit
  // (at time t, between whole times) the path is again a bridge, from 0 to
  // `end`: sample it at the next whole time; below 0 is the first passage,
  // else the search goes on from there.
  std::uint64_t now = 0;
  double y = start;
  while (now < length) {
    const double span = static_cast<double>(length - now);
    const bool hits =
        end < 0.0 || uniform01(stream) < std::exp(-2.0 * y * end / (sigma * sigma * span));
    if (!hits) break;
    const double s = hitting_time(stream, y, end / span, sigma);
    const double t = std::isinf(s) ? span : s * span / (span + s);
    const double next = std::min(std::floor(t) + 1.0, span);
    const double after = next - t, rest = span - next;
    const double value =
        end * after / (span - t) + sigma * std::sqrt(after * rest / (span - t)) * normal(stream);
    now += static_cast<std::uint64_t>(next);
    if (value < 0.0) return {now, value};
    y = value;
  }
  return {0, end};
}

}  // namespace pfmab::rng
