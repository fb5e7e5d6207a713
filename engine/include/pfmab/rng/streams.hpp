#pragma once

#include <cstdint>

#include <pcg_random.hpp>

namespace pfmab::rng {

// Everything a random stream may depend on (the determinism contract): a
// replication's client draws from the same numbers however many threads run,
// however the replications are split, and after any resume.
struct StreamKey {
  std::uint64_t seed = 0;
  std::uint64_t cell = 0;
  std::uint64_t replication = 0;
  std::uint64_t client = 0;
};

// A pcg32 whose state and stream selector are hashes of the whole key, so
// neighbouring keys give unrelated sequences.
pcg32 make_stream(const StreamKey& key);

}  // namespace pfmab::rng
