#include "pfmab/rng/streams.hpp"

namespace pfmab::rng {
namespace {

// SplitMix64's finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mix.
std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Order-dependent: the hash is mixed again before the value joins it, so
// swapping two key components (seed 1, cell 2 vs seed 2, cell 1) changes it.
std::uint64_t combine(std::uint64_t hash, std::uint64_t value) {
  return splitmix(splitmix(hash) ^ value);
}

}  // namespace

pcg32 make_stream(const StreamKey& key) {
  std::uint64_t h = splitmix(key.seed);
  h = combine(h, key.cell);
  h = combine(h, key.replication);
  h = combine(h, key.client);
  return pcg32(h, splitmix(h ^ 0x5851f42d4c957f2dULL));
}

}  // namespace pfmab::rng
