#include "pfmab/mpi/block_handout.hpp"

#include <algorithm>

namespace pfmab::mpi {

BlockHandout::BlockHandout(std::span<const sim::ReplicationRange> ranges, std::size_t ranks,
                           std::size_t threads)
    : ranges_(ranges.begin(), ranges.end()),
      // results held for writing: a few blocks per rank ahead of the oldest
      window_(16 * ranks) {
  for (const auto& r : ranges_) sizes_.push_back(block_size(r.count(), ranks, threads));
  next_replication_ = ranges_.empty() ? 0 : ranges_.front().first;
}

std::uint64_t BlockHandout::block_size(std::uint64_t replications, std::size_t ranks,
                                       std::size_t threads) {
  const std::uint64_t even = (replications + 16 * ranks - 1) / (16 * ranks);
  return std::min<std::uint64_t>(std::max<std::uint64_t>(even, 4 * threads), 256);
}

BlockHandout::Answer BlockHandout::next(int who) {
  while (next_cell_ < ranges_.size() && next_replication_ >= ranges_[next_cell_].end) {
    if (++next_cell_ < ranges_.size()) next_replication_ = ranges_[next_cell_].first;
  }
  if (stopped_ || next_cell_ == ranges_.size()) return {};
  if (next_id_ - popped_ >= window_ && holders_.count(popped_) && holders_.at(popped_) != who) {
    return {Status::wait, 0, {}};
  }
  const auto end = std::min(ranges_[next_cell_].end, next_replication_ + sizes_[next_cell_]);
  Answer answer{Status::block, next_id_++, {next_cell_, {next_replication_, end}}};
  next_replication_ = end;
  holders_[answer.id] = who;
  blocks_[answer.id] = answer.block;
  return answer;
}

void BlockHandout::finished(std::uint64_t id, io::RowBlock rows) {
  holders_.erase(id);
  held_.emplace(id, std::move(rows));
}

std::optional<std::pair<sim::Block, io::RowBlock>> BlockHandout::pop_in_order() {
  const auto it = held_.find(popped_);
  if (it == held_.end()) return std::nullopt;
  std::pair<sim::Block, io::RowBlock> out{blocks_.at(popped_), std::move(it->second)};
  held_.erase(it);
  blocks_.erase(popped_++);
  return out;
}

}  // namespace pfmab::mpi
