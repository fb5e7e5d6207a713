#include "pfmab/sim/trajectory.hpp"

#include <algorithm>

namespace pfmab::sim {

Trajectory::Trajectory(const model::Instance& instance, const model::MixedModel& measured,
                       std::span<const std::uint64_t> checkpoints, double comm_cost)
    : checkpoints_(checkpoints),
      comm_cost_(comm_cost),
      clients_(instance.clients()),
      arms_(instance.arms()),
      pulls_(clients_ * arms_, 0),
      scratch_(clients_ * arms_, 0) {
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

void Trajectory::add_pulls(std::span<const ClientPlay> plays, std::uint64_t elapsed,
                           std::vector<std::uint64_t>& counts) const {
  for (std::size_t m = 0; m < clients_; ++m) {
    std::uint64_t left = elapsed;
    for (const auto& run : plays[m]) {
      const std::uint64_t taken = std::min(left, run.slots());
      left -= taken;
      if (taken == 0) continue;
      // round robin: every arm gets taken / n pulls, the first taken % n one more
      const std::uint64_t n = run.arms.size();
      for (std::uint64_t i = 0; i < n; ++i) {
        counts[m * arms_ + run.arms[i]] += taken / n + (i < taken % n ? 1 : 0);
      }
    }
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
                         std::uint64_t comm_rounds) {
  const std::uint64_t end = std::min(now_ + length, horizon());
  const bool completes = length <= horizon() - now_;
  const std::uint64_t comm_at_end = completes ? comm_count_ + comm_rounds * clients_ : comm_count_;
  for (; next_checkpoint_ < checkpoints_.size() && checkpoints_[next_checkpoint_] <= end;
       ++next_checkpoint_) {
    const std::uint64_t at = checkpoints_[next_checkpoint_];
    scratch_ = pulls_;
    add_pulls(plays, at - now_, scratch_);
    record(scratch_, at == now_ + length ? comm_at_end : comm_count_);
  }
  add_pulls(plays, end - now_, pulls_);
  comm_count_ = comm_at_end;
  now_ = end;
}

}  // namespace pfmab::sim
