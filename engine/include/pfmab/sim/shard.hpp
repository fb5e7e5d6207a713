#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace pfmab::sim {

// Consecutive replications [first, end) of one cell.
struct ReplicationRange {
  std::uint64_t first = 0;
  std::uint64_t end = 0;

  std::uint64_t count() const { return end - first; }
  bool operator==(const ReplicationRange&) const = default;
};

// The replications in `ranges`.
std::uint64_t total(std::span<const ReplicationRange> ranges);

// Share `index` of `count` of every cell's replications: what one task of a
// job array runs (`--shard I/N`, I from 0 to N - 1). The shares are
// contiguous and in order, so that shards 0 to N - 1 joined end to end are
// the whole run: shard I of R replications is [floor(I R / N),
// floor((I + 1) R / N)), and their sizes differ by at most one.
struct Shard {
  std::uint64_t index = 0;
  std::uint64_t count = 1;

  bool whole() const { return count == 1; }
  ReplicationRange range(std::uint64_t replications) const;
  std::string text() const;  // "I/N"
  bool operator==(const Shard&) const = default;
};

// "I/N" with 0 <= I < N; throws UserError naming `text` otherwise, and the
// option as `option` (io::OptionNames::shard).
Shard parse_shard(std::string_view text, std::string_view option = "--shard");

// Throws UserError if `shard` would leave some shard with no replications
// (more shards than replications per cell), naming the option as `option`.
void validate(const Shard& shard, std::uint64_t replications, std::string_view option = "--shard");

}  // namespace pfmab::sim
