#include "pfmab/sim/shard.hpp"

#include <fmt/format.h>

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

void validate(const Shard& shard, std::uint64_t replications, std::string_view option) {
  if (shard.count > replications) {
    throw UserError(
        fmt::format("{} {}: {} shards of {} replications per cell would leave shards empty (use at "
                    "most {} shards)",
                    option, shard.text(), shard.count, replications, replications));
  }
}

}  // namespace pfmab::sim
