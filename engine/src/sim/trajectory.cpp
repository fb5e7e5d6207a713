#include "pfmab/sim/trajectory.hpp"

#include <algorithm>
#include <array>
#include <cassert>

#include "pfmab/util/checked.hpp"

namespace pfmab::sim {

Trajectory::Trajectory(const model::Instance& instance, const model::MixedModel& measured,
                       std::span<const std::uint64_t> checkpoints, double comm_cost)
    : checkpoints_(checkpoints),
      comm_cost_(comm_cost),
      clients_(instance.clients()),
      arms_(instance.arms()),
      pulls_(clients_ * arms_, 0),
      scratch_(clients_ * arms_, 0),
      cursors_(clients_) {
  for (std::size_t m = 0; m < clients_; ++m) {
    for (std::size_t k = 0; k < arms_; ++k) {
      gap_.push_back(measured.gap(m, k));
      local_.push_back(instance.local_mean(m, k));
      global_.push_back(instance.global_mean(k));
      mixed_.push_back(measured.mixed_mean(m, k));
    }
  }
  for (auto* s :
       {&series_.regret, &series_.local_reward, &series_.global_reward, &series_.mixed_reward}) {
    s->reserve(checkpoints.size());
  }
  series_.comm_count.reserve(checkpoints.size());
}

std::uint64_t Run::slots() const {
  if (counts.empty()) return saturating_mul(arms.size(), rounds);
  std::uint64_t total = 0;
  for (const auto c : counts) total = saturating_add(total, c);
  return total;
}

void Run::add_pulls(std::uint64_t elapsed, std::uint64_t* per_arm) const {
  const std::size_t n = arms.size();
  if (elapsed == 0) return;
  if (elapsed >= slots()) {
    // the whole run, as every run before a checkpoint's is: no levels to find
    for (std::size_t i = 0; i < n; ++i) per_arm[arms[i]] += pulls(i);
    return;
  }
  if (order == Order::blocked) {
    for (std::size_t i = 0; i < n && elapsed > 0; ++i) {
      const std::uint64_t taken = std::min(elapsed, pulls(i));
      per_arm[arms[i]] += taken;
      elapsed -= taken;
    }
    return;
  }
  if (counts.empty()) {
    // every arm gets elapsed / n pulls, the first elapsed % n one more
    for (std::size_t i = 0; i < n; ++i) {
      per_arm[arms[i]] += elapsed / n + (i < elapsed % n ? 1 : 0);
    }
    return;
  }
  // Unequal counts: in the first R rounds arm i is pulled min(counts[i], R)
  // times. Find the last R whose rounds fit in `elapsed`, level by level of
  // the sorted counts, then give the arms still owed pulls one more each, in
  // index order, while slots remain.
  // (on the stack for up to kLevelsOnStack arms: this runs at every
  // checkpoint a run straddles, for every client)
  constexpr std::size_t kLevelsOnStack = 64;
  std::array<std::uint64_t, kLevelsOnStack> few;
  std::vector<std::uint64_t> many;
  if (n > kLevelsOnStack) many.resize(n);
  const std::span<std::uint64_t> levels =
      n > kLevelsOnStack ? std::span(many) : std::span(few).first(n);
  std::copy(counts.begin(), counts.end(), levels.begin());
  std::sort(levels.begin(), levels.end());
  std::uint64_t rounds_done = 0, used = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint64_t owed = n - j;  // arms with counts above rounds_done
    const std::uint64_t step = std::min((elapsed - used) / owed, levels[j] - rounds_done);
    used += step * owed;
    rounds_done += step;
    if (rounds_done < levels[j]) break;
  }
  std::uint64_t extra = elapsed - used;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t c = counts[i];
    per_arm[arms[i]] += std::min(c, rounds_done);
    if (c > rounds_done && extra > 0) {
      ++per_arm[arms[i]];
      --extra;
    }
  }
}

std::uint64_t ClientPlay::slots() const {
  std::uint64_t total = 0;
  for (const auto& run : runs) total = saturating_add(total, run.slots());
  for (const auto& s : waiting) total = saturating_add(total, s.slots);
  return total;
}

inline void Trajectory::Cursor::pass(const ClientPlay& play, std::uint64_t elapsed,
                                     std::uint64_t* passed) {
  const std::size_t runs = play.runs.size(), items = runs + play.waiting.size();
  for (; item < items; ++item) {
    const std::uint64_t slots =
        item < runs ? play.runs[item].slots() : play.waiting[item - runs].slots;
    if (elapsed - done < slots) return;
    if (item < runs) {
      play.runs[item].add_pulls(slots, passed);
    } else {
      passed[play.waiting[item - runs].arm] += slots;
    }
    done += slots;
  }
}

inline void Trajectory::Cursor::add_part(const ClientPlay& play, std::uint64_t elapsed,
                                         std::uint64_t* counts) const {
  const std::size_t runs = play.runs.size();
  if (item == runs + play.waiting.size() || elapsed == done) return;
  if (item < runs) {
    play.runs[item].add_pulls(elapsed - done, counts);
  } else {
    counts[play.waiting[item - runs].arm] += elapsed - done;
  }
}

void Trajectory::record(const std::vector<std::uint64_t>& counts, std::uint64_t comm_count) {
  double regret = 0.0, local = 0.0, global = 0.0, mixed = 0.0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const auto n = static_cast<double>(counts[i]);
    regret += n * gap_[i];
    local += n * local_[i];
    global += n * global_[i];
    mixed += n * mixed_[i];
  }
  series_.regret.push_back(regret + comm_cost_ * static_cast<double>(comm_count));
  series_.local_reward.push_back(local);
  series_.global_reward.push_back(global);
  series_.mixed_reward.push_back(mixed);
  series_.comm_count.push_back(comm_count);
}

void Trajectory::advance(std::span<const ClientPlay> plays, std::uint64_t length,
                         std::uint64_t exchanges) {
  const bool completes = length <= horizon() - now_;
  const std::uint64_t end = completes ? now_ + length : horizon();
  const std::uint64_t comm_at_end = completes ? comm_count_ + exchanges : comm_count_;
  // Each client's runs wholly passed are added to pulls_ once, as the
  // checkpoints within the stretch reach them; a checkpoint's counts are
  // those and the part of the run it falls in (the same integers as adding
  // every run up to it afresh, so the same bits).
  std::fill(cursors_.begin(), cursors_.end(), Cursor{});
  for (; next_checkpoint_ < checkpoints_.size() && checkpoints_[next_checkpoint_] <= end;
       ++next_checkpoint_) {
    const std::uint64_t at = checkpoints_[next_checkpoint_];
    for (std::size_t m = 0; m < clients_; ++m) {
      cursors_[m].pass(plays[m], at - now_, pulls_.data() + m * arms_);
    }
    scratch_ = pulls_;
    for (std::size_t m = 0; m < clients_; ++m) {
      cursors_[m].add_part(plays[m], at - now_, scratch_.data() + m * arms_);
    }
    record(scratch_, at == now_ + length ? comm_at_end : comm_count_);
  }
  for (std::size_t m = 0; m < clients_; ++m) {
    cursors_[m].pass(plays[m], end - now_, pulls_.data() + m * arms_);
    cursors_[m].add_part(plays[m], end - now_, pulls_.data() + m * arms_);
  }
  comm_count_ = comm_at_end;
  now_ = end;
}

void Trajectory::advance_slot(std::span<const std::uint32_t> arms) {
  for (std::size_t m = 0; m < clients_; ++m) ++pulls_[m * arms_ + arms[m]];
  ++now_;
  record_due_checkpoints();
}

void Trajectory::account_counts(std::span<const std::uint64_t> counts) {
  const std::size_t block = pulls_.size();
  assert(now_ == 0 && counts.size() == checkpoints_.size() * block);
  // Each checkpoint's counts go through record() as advance_slot's would: the
  // same sums in the same (client, arm) order, hence the same bits.
  for (std::size_t c = 0; c < checkpoints_.size(); ++c) {
    std::copy_n(counts.begin() + static_cast<std::ptrdiff_t>(c * block), block, pulls_.begin());
    record(pulls_, comm_count_);
  }
  next_checkpoint_ = checkpoints_.size();
  now_ = horizon();
}

void Trajectory::record_due_checkpoints() {
  if (next_checkpoint_ < checkpoints_.size() && checkpoints_[next_checkpoint_] == now_) {
    record(pulls_, comm_count_);
    ++next_checkpoint_;
  }
}

}  // namespace pfmab::sim
