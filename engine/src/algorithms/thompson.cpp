// Thompson sampling (Thompson 1933) as slot-by-slot baselines, local and
// centralized (thompson.hpp), on the same engine, streams of rewards and
// accounting as local-ucb and centralized-ucb. Each arm's mean is drawn from
// the reward family's posterior (families::HasPosterior: each family's
// Posterior names its prior and its source), which needs no sub-Gaussian
// constant: on one-parameter exponential families, Thompson sampling with
// Jeffreys' prior is asymptotically optimal (Korda, Kaufmann and Munos
// 2013), and with the uniform prior on Bernoulli rewards (Kaufmann, Korda
// and Munos 2012).

#include "pfmab/algorithms/thompson.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <pcg_random.hpp>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/families/registry.hpp"
#include "pfmab/rng/streams.hpp"
#include "pfmab/sim/slot_by_slot.hpp"

#include "slot_by_slot_baseline.hpp"

namespace pfmab::algorithms {
namespace {

// local-thompson's client m: Thompson sampling on its own rewards. Its
// posterior draws come from a stream of its own, keyed like its rewards'
// (seed, cell, replication, m) but on client slot M + 1 + m: past the reward
// streams 0..M-1 and the server's M (phased algorithms', centralized-
// thompson's), so the rewards it sees are the ones every slot-by-slot
// baseline's client m sees.
template <class Posterior>
class LocalThompsonClient {
 public:
  LocalThompsonClient(const sim::Cell& cell, std::size_t m, const rng::StreamKey& rewards)
      : arms_(cell.instance().arms()),
        posterior_(cell.instance().rewards()),
        stream_(rng::make_stream(
            {rewards.seed, rewards.cell, rewards.replication, cell.instance().clients() + 1 + m})),
        pulls_(arms_, 0),
        sums_(arms_, 0.0),
        samples_(arms_) {}

  // Each arm once in index order, then one posterior draw per arm, in arm
  // order, and the largest (lowest index on ties).
  std::uint32_t choose(std::uint64_t t) {
    if (t <= arms_) return static_cast<std::uint32_t>(t - 1);
    for (std::size_t k = 0; k < arms_; ++k)
      samples_[k] = posterior_.draw(pulls_[k], sums_[k], stream_);
    return first_argmax(samples_.data(), arms_);
  }

  void observe(std::uint32_t arm, double reward) {
    sums_[arm] += reward;
    ++pulls_[arm];
  }

 private:
  std::size_t arms_;
  Posterior posterior_;
  pcg32 stream_;
  std::vector<std::uint64_t> pulls_;
  std::vector<double> sums_, samples_;
};

// centralized-thompson: every client's statistics in one place (see
// thompson.hpp). The server's draws come from the server's stream, key
// (seed, cell, replication, M) (sim::play_together).
template <class Posterior>
class CentralizedThompson {
 public:
  CentralizedThompson(const sim::Cell& cell, const rng::StreamKey& server)
      : clients_(cell.instance().clients()),
        arms_(cell.instance().arms()),
        alpha_(cell.algorithm_alpha()),
        shared_((1.0 - alpha_) / static_cast<double>(clients_)),
        posterior_(cell.instance().rewards()),
        stream_(rng::make_stream(server)),
        pulls_(clients_ * arms_, 0),
        sums_(clients_ * arms_, 0.0),
        samples_(clients_ * arms_),
        column_sums_(arms_),
        indices_(arms_) {}

  // Every client decides from the statistics after slot t - 1: each arm once
  // in index order, then sum_n w_{m,n} theta_{k,n} = alpha theta_{k,m} +
  // shared sum_n theta_{k,n}, from one draw of every theta per slot.
  std::uint32_t choose(std::size_t m, std::uint64_t t) {
    if (t <= arms_) return static_cast<std::uint32_t>(t - 1);
    if (t != drawn_slot_) {
      draw_game();
      drawn_slot_ = t;
    }
    const double* own = &samples_[m * arms_];
#pragma omp simd
    for (std::size_t k = 0; k < arms_; ++k)
      indices_[k] = alpha_ * own[k] + shared_ * column_sums_[k];
    return first_argmax(indices_.data(), arms_);
  }

  void observe(std::size_t m, std::uint32_t arm, double reward) {
    const std::size_t i = m * arms_ + arm;
    sums_[i] += reward;
    ++pulls_[i];
  }

  void end_slot() {}

 private:
  // theta_{k,n} for every client n and arm k, in that order (client by
  // client, arm by arm), then each arm's sum over the clients in client
  // order: O(M K).
  void draw_game() {
    for (std::size_t i = 0; i < samples_.size(); ++i) {
      samples_[i] = posterior_.draw(pulls_[i], sums_[i], stream_);
    }
    std::fill(column_sums_.begin(), column_sums_.end(), 0.0);
    for (std::size_t n = 0; n < clients_; ++n) {
      const double* row = &samples_[n * arms_];
#pragma omp simd
      for (std::size_t k = 0; k < arms_; ++k) column_sums_[k] += row[k];
    }
  }

  std::size_t clients_, arms_;
  double alpha_;   // the algorithm's
  double shared_;  // (1 - alpha) / M: every client's weight in the global part
  Posterior posterior_;
  pcg32 stream_;
  std::uint64_t drawn_slot_ = 0;  // the slot samples_ are for
  // per (client, arm), row-major: T_{k,n}, s_{k,n}, theta_{k,n}
  std::vector<std::uint64_t> pulls_;
  std::vector<double> sums_, samples_;
  std::vector<double> column_sums_;  // per arm: sum_n theta_{k,n}
  std::vector<double> indices_;      // scratch of choose
};

// What the posterior draws add to a replication, for the progress
// display's first estimate (sim::Algorithm::planning_cost): one draw per
// client, slot and arm, at the family's Posterior::draw_ns (3.6 ns for a
// normal, 18.4 for a Beta; bench/README.md, "Thompson sampling baselines").
double posterior_draws_cost(const sim::Cell& cell) {
  double draw_ns = 0.0;  // a family without a posterior never reaches a cell
  if (cell.instance().rewards().family().has_posterior()) {
    families::with_posterior(
        cell.instance().rewards(),
        [&]<class Posterior>(std::type_identity<Posterior>) { draw_ns = Posterior::draw_ns; });
  }
  return draw_ns * client_slot_arms(cell);
}

std::string refuses_without_posterior(const families::RewardFamily& rewards) {
  const auto& family = rewards.family();
  if (family.has_posterior()) return {};
  return fmt::format("it draws each arm's mean from its posterior; {} rewards have none ({})",
                     rewards.name(), family.no_posterior());
}

// `play(std::type_identity<Posterior>{})` for the cell's family's posterior:
// the one branch on the family per replication (families::with_posterior).
template <class Play>
sim::ReplicationResult with_cell_posterior(const sim::Cell& cell, Play&& play) {
  sim::ReplicationResult result;
  families::with_posterior(
      cell.instance().rewards(),
      [&]<class Posterior>(std::type_identity<Posterior> type) { result = play(type); });
  return result;
}

sim::ReplicationResult play_local(const sim::Cell& cell, std::uint64_t seed,
                                  std::uint64_t replication, const StopToken& stop) {
  return with_cell_posterior(cell, [&]<class Posterior>(std::type_identity<Posterior>) {
    return sim::play_apart<LocalThompsonClient<Posterior>>(cell, seed, replication, stop);
  });
}

sim::ReplicationResult play_centralized(const sim::Cell& cell, std::uint64_t seed,
                                        std::uint64_t replication, const StopToken& stop) {
  return with_cell_posterior(cell, [&]<class Posterior>(std::type_identity<Posterior>) {
    return sim::play_together<CentralizedThompson<Posterior>>(cell, seed, replication, stop);
  });
}

using LocalThompson =
    SlotBySlotBaseline<play_local, refuses_without_posterior, posterior_draws_cost>;
using Centralized =
    SlotBySlotBaseline<play_centralized, refuses_without_posterior, posterior_draws_cost>;

}  // namespace

sim::AlgorithmChoice local_thompson() {
  return [](const sim::CellContext&) { return std::make_shared<LocalThompson>("local-thompson"); };
}

sim::AlgorithmChoice centralized_thompson() {
  return
      [](const sim::CellContext&) { return std::make_shared<Centralized>("centralized-thompson"); };
}

namespace entries {

extern const AlgorithmEntry local_thompson{"local-thompson", nullptr,
                                           [](const io::CellValues&, const sim::CellContext& cell) {
                                             return algorithms::local_thompson()(cell);
                                           },
                                           kLocalIgnores};
extern const AlgorithmEntry centralized_thompson{
    "centralized-thompson", nullptr,
    [](const io::CellValues&, const sim::CellContext& cell) {
      return algorithms::centralized_thompson()(cell);
    },
    kCentralizedIgnores};

}  // namespace entries
}  // namespace pfmab::algorithms
