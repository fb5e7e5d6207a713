#include "pfmab/sim/baselines.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <pcg_random.hpp>

#include "pfmab/rng/reward_sampler.hpp"
#include "pfmab/rng/streams.hpp"
#include "pfmab/sim/trajectory.hpp"

namespace pfmab::sim {
namespace {

// The scale of the UCB bonus: UCB1's sqrt(2 log t / n) is for rewards in
// [0, 1] (Auer, Cesa-Bianchi and Fischer 2002), so 1 for Bernoulli; for
// Gaussian rewards the bonus is scaled by their sigma.
double bonus_scale(const model::RewardFamily& rewards) {
  return rewards.kind == model::RewardKind::gaussian ? rewards.sigma : 1.0;
}

// Client m's rewards, one sampler per arm.
template <class Rewards>
std::vector<Rewards> client_rewards(const model::Instance& instance, std::size_t client) {
  std::vector<Rewards> rewards;
  for (const double mu : instance.local_means(client)) rewards.emplace_back(mu, instance.rewards());
  return rewards;
}

// The arm maximising means[k] + bonus * roots[k], lowest index on ties.
// `indices` is scratch of `arms` values. Max is exact in any order, so the
// vectorised maximum finds the same arm as a scan would.
std::uint32_t ucb_argmax(const double* means, const double* roots, std::size_t arms, double bonus,
                         double* indices) {
  double best = -std::numeric_limits<double>::infinity();
#pragma omp simd reduction(max : best)
  for (std::size_t k = 0; k < arms; ++k) {
    indices[k] = means[k] + bonus * roots[k];
    best = std::max(best, indices[k]);
  }
  std::uint32_t arm = 0;
  while (indices[arm] != best) ++arm;
  return arm;
}

// What a baseline reports besides its series. It never fixes an arm, so the
// arm each client pulled most (lowest index on ties) stands for O_m.
ReplicationResult baseline_result(const Cell& cell, Series series,
                                  std::span<const std::uint64_t> final_counts) {
  const std::size_t clients = cell.instance().clients(), arms = cell.instance().arms();
  ReplicationResult r;
  r.series = std::move(series);
  r.exploration_pulls = cell.horizon() * clients;  // every reward is drawn
  for (std::size_t m = 0; m < clients; ++m) {
    const auto row = final_counts.subspan(m * arms, arms);
    const auto arm =
        static_cast<std::size_t>(std::max_element(row.begin(), row.end()) - row.begin());
    r.fixed_arm.push_back(static_cast<std::int32_t>(arm));
    r.fixed_optimal.push_back(cell.measured().gap(m, arm) == 0.0);
  }
  return r;
}

// UCB1 at client m on its own rewards for the whole horizon. Writes its pull
// counts at every checkpoint into `counts`, laid out as
// Trajectory::account_counts reads them.
template <class Rewards>
void play_local_ucb(const Cell& cell, std::size_t m, pcg32 stream, std::span<std::uint64_t> counts,
                    const StopToken& stop) {
  const auto& instance = cell.instance();
  const std::size_t clients = instance.clients(), arms = instance.arms();
  const auto& checkpoints = cell.checkpoints();
  const double scale = bonus_scale(instance.rewards());
  const auto rewards = client_rewards<Rewards>(instance, m);
  // per arm: n_k, s_k, s_k / n_k, sqrt(1 / n_k): sqrt(2 log t / n_k) is then
  // one product per arm, with the log taken once per slot
  std::vector<std::uint64_t> pulls(arms, 0);
  std::vector<double> sums(arms, 0.0), means(arms, 0.0), roots(arms, 0.0), indices(arms);
  std::size_t next = 0;  // next checkpoint
  for (std::uint64_t t = 1; t <= cell.horizon(); ++t) {
    stop.poll(t);
    const std::uint32_t arm =
        t <= arms
            ? static_cast<std::uint32_t>(t - 1)  // each arm once, in index order
            : ucb_argmax(means.data(), roots.data(), arms,
                         scale * std::sqrt(2.0 * std::log(static_cast<double>(t))), indices.data());
    sums[arm] += rewards[arm].draw(stream);
    const auto n = static_cast<double>(++pulls[arm]);
    means[arm] = sums[arm] / n;
    roots[arm] = std::sqrt(1.0 / n);
    if (t == checkpoints[next]) {
      std::copy(pulls.begin(), pulls.end(), counts.begin() + (next * clients + m) * arms);
      ++next;
    }
  }
}

// Centralized UCB: every client's statistics in one place, every slot
// decided from all of them.
template <class Rewards>
class CentralizedUcb {
 public:
  CentralizedUcb(const Cell& cell, std::uint64_t seed, std::uint64_t replication,
                 const StopToken& stop)
      : cell_(cell),
        stop_(stop),
        clients_(cell.instance().clients()),
        arms_(cell.instance().arms()),
        alpha_(cell.algorithm_alpha()),
        shared_((1.0 - alpha_) / static_cast<double>(clients_)),
        // sum_n w_{m,n}^2 / T_{k,n} = shared^2 sum_n 1 / T_{k,n}
        //   + ((alpha + shared)^2 - shared^2) / T_{k,m}
        own_(alpha_ * alpha_ + 2.0 * alpha_ * shared_),
        scale_(bonus_scale(cell.instance().rewards())),
        trajectory_(cell.instance(), cell.measured(), cell.checkpoints(), cell.spec().comm_cost),
        played_(clients_, 0),
        pulls_(clients_ * arms_, 0),
        sums_(clients_ * arms_, 0.0),
        means_(clients_ * arms_, 0.0),
        inverse_(clients_ * arms_, 0.0),
        mixed_(clients_ * arms_, 0.0),
        roots_(clients_ * arms_, 0.0),
        indices_(arms_),
        stale_(arms_, false) {
    for (std::size_t m = 0; m < clients_; ++m) {
      streams_.push_back(rng::make_stream({seed, cell.index(), replication, m}));
      const auto own = client_rewards<Rewards>(cell.instance(), m);
      rewards_.insert(rewards_.end(), own.begin(), own.end());
    }
  }

  ReplicationResult run() {
    for (std::uint64_t t = 1; t <= cell_.horizon(); ++t) {
      stop_.poll(t);
      if (t <= arms_) {
        std::fill(played_.begin(), played_.end(), static_cast<std::uint32_t>(t - 1));
      } else {
        // every client decides from the statistics after slot t - 1
        const double bonus = scale_ * std::sqrt(2.0 * std::log(static_cast<double>(t)));
        for (std::size_t m = 0; m < clients_; ++m) {
          played_[m] =
              ucb_argmax(&mixed_[m * arms_], &roots_[m * arms_], arms_, bonus, indices_.data());
        }
      }
      for (std::size_t m = 0; m < clients_; ++m) pull(m, played_[m]);
      refresh_stale_arms();
      trajectory_.advance_slot(played_);
    }
    return baseline_result(cell_, trajectory_.take_series(), pulls_);
  }

 private:
  void pull(std::size_t m, std::uint32_t arm) {
    const std::size_t i = m * arms_ + arm;
    sums_[i] += rewards_[i].draw(streams_[m]);
    const auto n = static_cast<double>(++pulls_[i]);
    means_[i] = sums_[i] / n;
    inverse_[i] = 1.0 / n;
    stale_[arm] = true;
  }

  // Only the arms pulled in this slot change their estimates and widths, for
  // every client (the global part is shared).
  void refresh_stale_arms() {
    for (std::size_t k = 0; k < arms_; ++k) {
      if (!stale_[k]) continue;
      stale_[k] = false;
      double mean_sum = 0.0, inverse_sum = 0.0;
      for (std::size_t n = 0; n < clients_; ++n) {
        mean_sum += means_[n * arms_ + k];
        inverse_sum += inverse_[n * arms_ + k];
      }
      for (std::size_t m = 0; m < clients_; ++m) {
        const std::size_t i = m * arms_ + k;
        mixed_[i] = alpha_ * means_[i] + shared_ * mean_sum;
        roots_[i] = std::sqrt(shared_ * shared_ * inverse_sum + own_ * inverse_[i]);
      }
    }
  }

  const Cell& cell_;
  StopToken stop_;
  std::size_t clients_, arms_;
  double alpha_;
  double shared_;  // (1 - alpha) / M: every client's weight in the global part
  double own_;
  double scale_;
  std::vector<pcg32> streams_;
  std::vector<Rewards> rewards_;  // per (client, arm), row-major
  Trajectory trajectory_;
  std::vector<std::uint32_t> played_;  // this slot's arm per client
  // per (client, arm), row-major: T_{k,m}, s_{k,m}, s / T, 1 / T, the mixed
  // estimate, sqrt(sum_n w_{m,n}^2 / T_{k,n})
  std::vector<std::uint64_t> pulls_;
  std::vector<double> sums_, means_, inverse_, mixed_, roots_;
  std::vector<double> indices_;  // scratch of ucb_argmax
  std::vector<bool> stale_;      // per arm: pulled since the last refresh
};

}  // namespace

ReplicationResult run_local_ucb(const Cell& cell, std::uint64_t seed, std::uint64_t replication,
                                const StopToken& stop) {
  const auto& instance = cell.instance();
  const std::size_t block = instance.clients() * instance.arms();
  std::vector<std::uint64_t> counts(cell.checkpoints().size() * block, 0);
  // Isolation keeps this thread, while it waits, to this replication's own
  // tasks rather than nesting another replication inside this one. Each task
  // writes only its own client's counts, so the order the tasks run in and
  // the thread count cannot change the result.
  tbb::this_task_arena::isolate([&] {
    tbb::task_group tasks;
    for (std::size_t m = 0; m < instance.clients(); ++m) {
      tasks.run([&, m] {
        rng::with_rewards(instance.rewards(), [&]<class Rewards>(std::type_identity<Rewards>) {
          play_local_ucb<Rewards>(cell, m, rng::make_stream({seed, cell.index(), replication, m}),
                                  counts, stop);
        });
      });
    }
    tasks.wait();
  });
  Trajectory trajectory(instance, cell.measured(), cell.checkpoints(), cell.spec().comm_cost);
  trajectory.account_counts(counts);
  return baseline_result(cell, trajectory.take_series(),
                         std::span(counts).subspan(counts.size() - block));
}

ReplicationResult run_centralized_ucb(const Cell& cell, std::uint64_t seed,
                                      std::uint64_t replication, const StopToken& stop) {
  const auto& family = cell.instance().rewards();
  return rng::with_rewards(family, [&]<class Rewards>(std::type_identity<Rewards>) {
    return CentralizedUcb<Rewards>(cell, seed, replication, stop).run();
  });
}

}  // namespace pfmab::sim
