#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pfmab::sim {

class Cell;

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

// Every cell's share of `shard`, one range per cell, for cells of
// `replications` each whose replications cost `costs` each (any unit).
// Where every cell has at least `shard.count` replications, each cell's
// Shard::range. Otherwise (a sweep of many cells of few replications, which
// a split of each cell could not spread over the shards) the sweep's
// replications in cell order are cut into `shard.count` stretches of equal
// estimated cost, so that a shard holds whole cells, parts of the cells at
// its ends, and none of the others (a shard may even be empty, where one
// replication costs more than a shard's share). Either way shards 0 to N - 1
// joined end to end are the whole run, every cell's replications in order.
// The costs are rounded to whole units and the cuts made in integers, so
// that every process of a job array computes the same split.
std::vector<ReplicationRange> split(const Shard& shard, std::span<const std::uint64_t> replications,
                                    std::span<const double> costs);

// The share of `shard` of each of `cells`, of `replications` each: split()
// with the cells' estimated costs (sim::replication_cost).
std::vector<ReplicationRange> shard_ranges(const Shard& shard, std::span<const Cell> cells,
                                           std::span<const std::uint64_t> replications);

// Throws UserError if `shard` has more shards than the sweep has
// replications (`replications`, the whole sweep's), naming the option as
// `option`.
void validate(const Shard& shard, std::uint64_t replications, std::string_view option = "--shard");

}  // namespace pfmab::sim
