#include "pfmab/rng/samplers.hpp"

namespace pfmab::rng {

std::uint64_t bernoulli_threshold(double mu) {
  return static_cast<std::uint64_t>(std::llround(std::ldexp(mu, 32)));
}

double log1p_minus(double w) {
  // Beyond 2^-6 the direct difference loses at most a factor 2^7 of
  // relative precision (log1p(w) - w is about -w^2 / 2). Nearer 0, with
  // t = w / (2 + w): log1p(w) = 2 atanh(t) and w - 2t = w t, so log1p(w) - w
  // = 2 (atanh(t) - t) - w t = 2 t^3 (1/3 + t^2/5 + t^4/7 + ...) - w t, every
  // term small against the last; |t| < 2^-7 lets the series stop at t^8,
  // whose share is below 2^-56.
  if (std::abs(w) > 0x1p-6) return std::log1p(w) - w;
  const double t = w / (2.0 + w), t2 = t * t;
  const double series = 1.0 / 3 + t2 * (1.0 / 5 + t2 * (1.0 / 7 + t2 * (1.0 / 9 + t2 / 11)));
  return 2.0 * t * t2 * series - w * t;
}

double Poisson::approximate(double lambda, double z) {
  // Skewness lambda^-1/2 and excess kurtosis 1 / lambda: the quantile
  // z + g (z^2 - 1) / 6 + g^2 (z^3 - 3z) / 24 - g^2 (2 z^3 - 5 z) / 36.
  const double g = 1.0 / std::sqrt(lambda), z2 = z * z;
  const double w =
      z + g * (z2 - 1.0) / 6.0 + g * g * (z * (z2 - 3.0) / 24.0 - z * (2.0 * z2 - 5.0) / 36.0);
  // The whole part of lambda added last: lambda + sqrt(lambda) w rounded at
  // lambda's magnitude would move the count by up to ulp(lambda), 1e-12 of
  // a standard deviation at 1e8; so below 2^53 only the rounding of the
  // count itself to a double remains.
  const double whole = std::floor(lambda);
  return whole + std::floor(lambda - whole + std::sqrt(lambda - 1.0 / 12.0) * w + 0.5);
}

}  // namespace pfmab::rng
