#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace pfmab {

// Counts of slots and pulls. Every count a replication observes is at most
// M T <= 2^62 (docs/limits.md); a planned length may be longer (a phase
// whose f(p) exceeds the horizon), and is then cut at the horizon. Such
// lengths saturate at 2^64 - 1 instead of wrapping: a saturated count exceeds
// every horizon, so the horizon cuts it exactly where the true one would be.
inline constexpr std::uint64_t saturated = std::numeric_limits<std::uint64_t>::max();

constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? saturated : sum;
}

constexpr std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? saturated : product;
}

// a b, or nothing if it does not fit in 64 bits.
constexpr std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

}  // namespace pfmab
