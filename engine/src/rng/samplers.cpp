#include "pfmab/rng/samplers.hpp"

namespace pfmab::rng {

std::uint64_t bernoulli_threshold(double mu) {
  return static_cast<std::uint64_t>(std::llround(std::ldexp(mu, 32)));
}

}  // namespace pfmab::rng
