#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include <boost/random/binomial_distribution.hpp>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/poisson_distribution.hpp>
#include <pcg_random.hpp>

namespace pfmab::rng {

// N(0, 1) by Boost's ziggurat: a few ns per draw from pcg32, against ~9 ns
// for std::normal_distribution's Box-Muller.
using UnitNormal = boost::random::normal_distribution<double>;
// Exp(1) by Boost's ziggurat, which builds its 53-bit uniform from two
// 32-bit draws.
using UnitExponential = boost::random::exponential_distribution<double>;

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

// log(1 + w) - w for w > -1, within 2^-45 of its own size even where it is
// the tiny difference of two nearly equal numbers (|w| small).
double log1p_minus(double w);

// Gamma(shape, 1) for shape > 0 (Marsaglia and Tsang 2000): one normal and
// one 53-bit uniform per try, accepted with probability above 0.95 at
// shape 1 and tending to 1. Boost's gamma_distribution is not used: its
// acceptance test multiplies log(x / (shape - 1)) by shape - 1, an error of
// about shape 2^-53 in the log-density, which reaches 2^9 at shape 2^62.
// Here the test is x^2 / 2 + d log1p_minus(w) with w = (1 + cx)^3 - 1 formed
// without cancellation, whose relative error stays below 2^-45 at every
// shape: exact up to floating point. The one rounding left is
// d = shape - 1/3 itself, within 2^-53 of it relatively: the law drawn is
// Gamma(d + 1/3), whose mean is off by at most 2^-22 of a standard deviation
// at shape 2^62 (and not at all below 2^52). Below shape 1 (the Poisson
// posterior's Gamma(1/2), families/poisson.hpp), Marsaglia and Tsang's own
// reduction: Gamma(shape + 1) U^(1 / shape), one more 53-bit uniform.
inline double gamma(pcg32& stream, double shape) {
  if (shape < 1.0) return gamma(stream, shape + 1.0) * std::pow(uniform01(stream), 1.0 / shape);
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = UnitNormal()(stream), cx = c * x;
    if (cx <= -1.0) continue;
    const double w = cx * (3.0 + cx * (3.0 + cx));  // (1 + cx)^3 - 1
    const double u = uniform01(stream), x2 = x * x;
    // Marsaglia and Tsang's squeeze: 1 - 0.0331 x^4 lies below the exact
    // test's bound exp(x^2 / 2 + d log1p_minus(w)) at every x, so it accepts
    // only what the test would, from the same draws, and spares the two
    // logarithms in about 92% of the tries at every shape.
    if (u < 1.0 - 0.0331 * x2 * x2) return d * (1.0 + w);
    if (std::log(u) < 0.5 * x * x + d * log1p_minus(w)) return d * (1.0 + w);
  }
}

// Beta(a, b), a, b > 0, as X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b) (two
// gamma draws, X first): the Bernoulli posterior of Thompson sampling
// (families/bernoulli.hpp).
inline double beta(pcg32& stream, double a, double b) {
  const double x = gamma(stream, a);
  return x / (x + gamma(stream, b));
}

// Poisson(lambda) draws, lambda finite and >= 0: the count, as a double (exact
// below 2^53). Up to lambda = 2^18 by Boost's samplers fed 53-bit uniforms:
// inversion below 10, else PTRD (Hormann 1993), exact up to floating point
// (its acceptance test loses about lambda 2^-53 to rounding: 3e-11 at 2^18,
// but 1e-4 at 1e12, and its count is an int64). Above 2^18, a normal
// quantile corrected to order 1 / lambda (Cornish-Fisher, with Sheppard's
// variance lambda - 1/12 for the rounding to a count): its CDF is within
// 1.1e-2 lambda^-3/2 of Poisson(lambda)'s at every count, 8e-11 at 2^18
// and less above (measured against the regularized incomplete gamma
// function from lambda = 1e3 to 1e9: tests/unit/families/poisson_test.cpp),
// so never worse than PTRD would be there.
class Poisson {
 public:
  static constexpr double exact_limit = 0x1p18;

  explicit Poisson(double lambda)
      : lambda_(lambda), exact_(lambda > 0.0 && lambda <= exact_limit ? lambda : 1.0) {}

  double operator()(pcg32& stream) const {
    if (lambda_ > exact_limit) return approximate(lambda_, UnitNormal()(stream));
    if (lambda_ == 0.0) return 0.0;  // Boost's asserts lambda > 0
    Wide64 wide(stream);
    return static_cast<double>(exact_(wide));
  }

  // The count above exact_limit at the normal quantile z: round(lambda +
  // sqrt(lambda - 1/12) w(z)), w the Cornish-Fisher quantile to order
  // 1 / lambda. Increasing in z and >= 0 for |z| < 100, far past what a
  // normal draw reaches.
  static double approximate(double lambda, double z);

 private:
  double lambda_;
  boost::random::poisson_distribution<std::int64_t, double> exact_;
};

}  // namespace pfmab::rng
