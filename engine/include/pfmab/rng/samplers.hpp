#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include <boost/random/binomial_distribution.hpp>
#include <boost/random/normal_distribution.hpp>
#include <pcg_random.hpp>

namespace pfmab::rng {

// N(0, 1) by Boost's ziggurat: a few ns per draw from pcg32, against ~9 ns
// for std::normal_distribution's Box-Muller.
using UnitNormal = boost::random::normal_distribution<double>;

// Bernoulli(mu) in one 32-bit draw: success when u < round(mu 2^32). Exact
// for mu = 0 and mu = 1, within 2^-33 of mu otherwise. Out of line and
// declared const (libm's rounding may set errno, which keeps an inline call
// alive), so that the threshold of a sampler that only draws sums
// (families::Bernoulli::Sampler::sum_of, the aggregated mode) is never computed.
[[gnu::const]] std::uint64_t bernoulli_threshold(double mu);

// A pcg32 seen as a 64-bit engine, two draws per output: Boost's samplers
// turn one engine output into a uniform, which from 32 bits would resolve
// only 2^-32 (a visible grid in the Binomial's tails at n = 1e12).
class Wide64 {
 public:
  using result_type = std::uint64_t;
  explicit Wide64(pcg32& stream) : stream_(stream) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() {
    const std::uint64_t high = stream_();
    return high << 32 | stream_();
  }

 private:
  pcg32& stream_;
};

// A uniform on [0, 1) with 53 random bits (two 32-bit draws).
inline double uniform01(pcg32& stream) {
  return static_cast<double>(Wide64(stream)() >> 11) * 0x1p-53;
}

// The number of successes in n Bernoulli(mu) trials, drawn at once: Boost's
// inversion for (n + 1) min(mu, 1 - mu) < 11, else the BTRD rejection sampler
// (Hormann 1993), both exact up to floating point. n up to 2^63 - 1.
inline std::int64_t binomial(pcg32& stream, std::int64_t n, double mu) {
  Wide64 wide(stream);
  return boost::random::binomial_distribution<std::int64_t, double>(n, mu)(wide);
}

}  // namespace pfmab::rng
