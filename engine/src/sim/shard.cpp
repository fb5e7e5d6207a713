#include "pfmab/sim/shard.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "pfmab/sim/cost.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/parse.hpp"

namespace pfmab::sim {
namespace {

__extension__ using Wide = unsigned __int128;  // g++ and clang; __extension__: not ISO

// floor(i r / n) without overflow for any i <= n and r up to 2^62
std::uint64_t split_point(std::uint64_t i, std::uint64_t r, std::uint64_t n) {
  return static_cast<std::uint64_t>(static_cast<Wide>(i) * r / n);
}

}  // namespace

std::uint64_t total(std::span<const ReplicationRange> ranges) {
  std::uint64_t replications = 0;
  for (const auto& r : ranges) replications += r.count();
  return replications;
}

ReplicationRange Shard::range(std::uint64_t replications) const {
  return {split_point(index, replications, count), split_point(index + 1, replications, count)};
}

std::string Shard::text() const { return fmt::format("{}/{}", index, count); }

Shard parse_shard(std::string_view text, std::string_view option) {
  const auto slash = text.find('/');
  const auto bad = [&] {
    return UserError(
        fmt::format("{} '{}' is not I/N with 0 <= I < N (e.g. 0/4 to 3/4 for four shards)", option,
                    excerpt(text)));
  };
  if (slash == std::string_view::npos) throw bad();
  Shard shard;
  try {
    shard.index = parse_count(text.substr(0, slash), "shard index");
    shard.count = parse_count(text.substr(slash + 1), "shard count");
  } catch (const UserError&) {
    throw bad();
  }
  if (shard.count == 0 || shard.index >= shard.count) throw bad();
  return shard;
}

namespace {

// Whether every cell has a replication for every shard: then each cell is
// split on its own, whatever the costs.
bool splits_each_cell(const Shard& shard, std::span<const std::uint64_t> replications) {
  return std::all_of(replications.begin(), replications.end(),
                     [&](std::uint64_t r) { return r >= shard.count; });
}

}  // namespace

std::vector<ReplicationRange> split(const Shard& shard, std::span<const std::uint64_t> replications,
                                    std::span<const double> costs) {
  std::vector<ReplicationRange> ranges;
  if (splits_each_cell(shard, replications)) {
    for (const auto r : replications) ranges.push_back(shard.range(r));
    return ranges;
  }
  // Replication j of cell c spans [S_c + j w_c, S_c + (j + 1) w_c) of the
  // sweep's cost W = sum_c R_c w_c, and belongs to the shard I whose
  // [floor(I W / N), floor((I + 1) W / N)) holds its start.
  // Weights relative to the costliest cell's 2^20 (costs are estimates: six
  // figures are plenty), so that W N fits 128 bits for any sweep the engine
  // takes (W <= 2^20 x 2^62 x the cells) and any number of shards up to
  // 2^(46 - log2 cells).
  const double costliest = *std::max_element(costs.begin(), costs.end());
  std::vector<Wide> weight;
  Wide whole = 0;
  for (std::size_t c = 0; c < replications.size(); ++c) {
    const double relative = costliest > 0.0 ? costs[c] / costliest : 1.0;
    weight.push_back(static_cast<Wide>(std::max(1.0, std::round(0x1p20 * relative))));
    whole += weight.back() * replications[c];
  }
  if (whole > ~Wide{0} / shard.count) {
    throw UserError(
        fmt::format("--shard {}: too many shards to split this sweep by cost", shard.text()));
  }
  const auto cut = [&](std::uint64_t i) { return whole * i / shard.count; };
  const Wide from = cut(shard.index), to = cut(shard.index + 1);
  Wide start = 0;  // S_c
  for (std::size_t c = 0; c < replications.size(); ++c) {
    // the replications of cell c that start before `bound`
    const auto before = [&](Wide bound) -> std::uint64_t {
      if (bound <= start) return 0;
      const Wide n = (bound - start + weight[c] - 1) / weight[c];
      return static_cast<std::uint64_t>(std::min<Wide>(n, replications[c]));
    };
    ranges.push_back({before(from), before(to)});
    start += weight[c] * replications[c];
  }
  return ranges;
}

std::vector<ReplicationRange> shard_ranges(const Shard& shard, std::span<const Cell> cells,
                                           std::span<const std::uint64_t> replications) {
  // the costs only where they decide the split: a sweep's cells are priced
  // once per call, and a run asks several times
  std::vector<double> costs;
  if (!splits_each_cell(shard, replications)) {
    for (const auto& cell : cells) costs.push_back(replication_cost(cell));
  }
  return split(shard, replications, costs);
}

void validate(const Shard& shard, std::uint64_t replications, std::string_view option) {
  if (shard.count > replications) {
    throw UserError(
        fmt::format("{} {}: {} shards of a sweep of {} replications would leave shards empty (use "
                    "at most {} shards)",
                    option, shard.text(), shard.count, replications, replications));
  }
}

}  // namespace pfmab::sim
