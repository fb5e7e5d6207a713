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
  if (next_id_ - popped_ >= window_) {
    const auto& oldest = out_.at(popped_);  // the window is full, so it is out
    if (!oldest.rows && oldest.holder != who) return {Status::wait, 0, {}};
  }
  const auto end = next_replication_ +
                   block_size(ranges_[next_cell_].end - next_replication_, ranks_, threads_);
  Answer answer{Status::block, next_id_++, {next_cell_, {next_replication_, end}}};
  next_replication_ = end;
  out_.emplace(answer.id, Out{answer.block, who, std::nullopt});
  return answer;
}

void BlockHandout::finished(std::uint64_t id, io::RowBlock rows) {
  out_.at(id).rows = std::move(rows);
}

std::optional<std::pair<sim::Block, io::RowBlock>> BlockHandout::pop_in_order() {
  const auto it = out_.find(popped_);
  if (it == out_.end() || !it->second.rows) return std::nullopt;
  std::pair<sim::Block, io::RowBlock> next{it->second.block, std::move(*it->second.rows)};
  out_.erase(it);
  ++popped_;
  return next;
}

}  // namespace pfmab::mpi
