#include "pfmab/mpi/block_handout.hpp"

#include <algorithm>

namespace pfmab::mpi {

BlockHandout::BlockHandout(std::span<const sim::ReplicationRange> ranges, std::size_t ranks,
                           std::size_t threads)
    : ranges_(ranges.begin(), ranges.end()),
      ranks_(ranks),
      threads_(threads),
      // blocks held for writing ahead of the oldest: 16 per rank
      window_(16 * ranks) {
  next_replication_ = ranges_.empty() ? 0 : ranges_.front().first;
}

std::uint64_t BlockHandout::block_size(std::uint64_t remaining, std::size_t ranks,
                                       std::size_t threads) {
  const std::uint64_t share = (remaining + 2 * ranks - 1) / (2 * ranks);
  return std::min<std::uint64_t>({std::max<std::uint64_t>(share, threads), 256, remaining});
}

BlockHandout::Answer BlockHandout::next(int who) {
  while (next_cell_ < ranges_.size() && next_replication_ >= ranges_[next_cell_].end) {
    if (++next_cell_ < ranges_.size()) next_replication_ = ranges_[next_cell_].first;
  }
  if (stopped_ || next_cell_ == ranges_.size()) return {};
  if (next_id_ - popped_ >= window_ && holders_.count(popped_) && holders_.at(popped_) != who) {
    return {Status::wait, 0, {}};
  }
  const auto end = next_replication_ +
                   block_size(ranges_[next_cell_].end - next_replication_, ranks_, threads_);
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
