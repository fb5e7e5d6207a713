// The baselines a reviewer asks for, through the algorithm interface as
// slot-by-slot algorithms (sim/slot_by_slot.hpp), so on the same streams,
// trajectory accounting and output as PF-UCB. The UCB bonus scale s is the
// reward family's (families::Family::ucb_scale): the rewards' sigma
// (Gaussian) or 1 (Bernoulli): UCB1's sqrt(2 log t / n) is for rewards in
// [0, 1] (Auer, Cesa-Bianchi and Fischer 2002).

#include "pfmab/algorithms/baselines.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/sim/slot_by_slot.hpp"

#include "slot_by_slot_baseline.hpp"

namespace pfmab::algorithms {
namespace {

double bonus_scale(const families::RewardFamily& rewards) { return rewards.ucb_scale(); }

// s sqrt(2 log t): the bonus at slot t over sqrt(1 / n).
double bonus(double scale, std::uint64_t t) {
  return scale * std::sqrt(2.0 * std::log(static_cast<double>(t)));
}

// The arm maximising means[k] + bonus * roots[k], lowest index on ties.
// `indices` is scratch of `arms` values.
std::uint32_t ucb_argmax(const double* means, const double* roots, std::size_t arms, double bonus,
                         double* indices) {
#pragma omp simd
  for (std::size_t k = 0; k < arms; ++k) indices[k] = means[k] + bonus * roots[k];
  return first_argmax(indices, arms);
}

// local-ucb: UCB1 at one client on its own rewards (each arm once in index
// order, then the argmax of mean + s sqrt(2 log t / n), lowest index on
// ties), with no communication. It ignores alpha.
class LocalUcbClient {
 public:
  LocalUcbClient(const sim::Cell& cell, std::size_t /*m*/)
      : arms_(cell.instance().arms()),
        scale_(bonus_scale(cell.instance().rewards())),
        pulls_(arms_, 0),
        sums_(arms_, 0.0),
        means_(arms_, 0.0),
        roots_(arms_, 0.0),
        indices_(arms_) {}

  std::uint32_t choose(std::uint64_t t) {
    if (t <= arms_) return static_cast<std::uint32_t>(t - 1);
    return ucb_argmax(means_.data(), roots_.data(), arms_, bonus(scale_, t), indices_.data());
  }

  // s_k / n_k and sqrt(1 / n_k) kept per arm: the index is then one product
  // per arm, with the log taken once per slot.
  void observe(std::uint32_t arm, double reward) {
    sums_[arm] += reward;
    const auto n = static_cast<double>(++pulls_[arm]);
    means_[arm] = sums_[arm] / n;
    roots_[arm] = std::sqrt(1.0 / n);
  }

 private:
  std::size_t arms_;
  double scale_;
  std::vector<std::uint64_t> pulls_;
  std::vector<double> sums_, means_, roots_, indices_;
};

// centralized-ucb: every client's statistics in one place, every slot
// decided from all of them (see baselines.hpp).
class CentralizedUcb {
 public:
  explicit CentralizedUcb(const sim::Cell& cell)
      : clients_(cell.instance().clients()),
        arms_(cell.instance().arms()),
        alpha_(cell.algorithm_alpha()),
        shared_((1.0 - alpha_) / static_cast<double>(clients_)),
        // sum_n w_{m,n}^2 / T_{k,n} = shared^2 sum_n 1 / T_{k,n}
        //   + ((alpha + shared)^2 - shared^2) / T_{k,m}
        own_(alpha_ * alpha_ + 2.0 * alpha_ * shared_),
        scale_(bonus_scale(cell.instance().rewards())),
        pulls_(clients_ * arms_, 0),
        sums_(clients_ * arms_, 0.0),
        means_(clients_ * arms_, 0.0),
        inverse_(clients_ * arms_, 0.0),
        mixed_(clients_ * arms_, 0.0),
        roots_(clients_ * arms_, 0.0),
        indices_(arms_),
        stale_(arms_, false) {}

  // Every client decides from the statistics after slot t - 1.
  std::uint32_t choose(std::size_t m, std::uint64_t t) {
    if (t <= arms_) return static_cast<std::uint32_t>(t - 1);
    if (t != bonus_slot_) {
      bonus_ = bonus(scale_, t);
      bonus_slot_ = t;
    }
    return ucb_argmax(&mixed_[m * arms_], &roots_[m * arms_], arms_, bonus_, indices_.data());
  }

  void observe(std::size_t m, std::uint32_t arm, double reward) {
    const std::size_t i = m * arms_ + arm;
    sums_[i] += reward;
    const auto n = static_cast<double>(++pulls_[i]);
    means_[i] = sums_[i] / n;
    inverse_[i] = 1.0 / n;
    stale_[arm] = true;
  }

  // Only the arms pulled in this slot change their estimates and widths, for
  // every client (the global part is shared).
  void end_slot() {
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

 private:
  std::size_t clients_, arms_;
  double alpha_;   // the algorithm's
  double shared_;  // (1 - alpha) / M: every client's weight in the global part
  double own_;
  double scale_;
  std::uint64_t bonus_slot_ = 0;  // the slot bonus_ is for
  double bonus_ = 0.0;
  // per (client, arm), row-major: T_{k,m}, s_{k,m}, s / T, 1 / T, the mixed
  // estimate, sqrt(sum_n w_{m,n}^2 / T_{k,n})
  std::vector<std::uint64_t> pulls_;
  std::vector<double> sums_, means_, inverse_, mixed_, roots_;
  std::vector<double> indices_;  // scratch of ucb_argmax
  std::vector<bool> stale_;      // per arm: pulled since the last refresh
};

// Both baselines' bonuses scale with the family's ucb_scale.
std::string refuses_unless_subgaussian_bonus(const families::RewardFamily& rewards) {
  return sim::refuses_unless_subgaussian("its bonus", rewards);
}

using LocalUcb =
    SlotBySlotBaseline<sim::play_apart<LocalUcbClient>, refuses_unless_subgaussian_bonus>;
using Centralized =
    SlotBySlotBaseline<sim::play_together<CentralizedUcb>, refuses_unless_subgaussian_bonus>;

}  // namespace

sim::AlgorithmChoice local_ucb() {
  return [](const sim::CellContext&) { return std::make_shared<LocalUcb>("local-ucb"); };
}

sim::AlgorithmChoice centralized_ucb() {
  return [](const sim::CellContext&) { return std::make_shared<Centralized>("centralized-ucb"); };
}

namespace entries {

extern const AlgorithmEntry local_ucb{"local-ucb", nullptr,
                                      [](const io::CellValues&, const sim::CellContext& cell) {
                                        return algorithms::local_ucb()(cell);
                                      },
                                      kLocalIgnores};
extern const AlgorithmEntry centralized_ucb{
    "centralized-ucb", nullptr,
    [](const io::CellValues&, const sim::CellContext& cell) {
      return algorithms::centralized_ucb()(cell);
    },
    kCentralizedIgnores};

}  // namespace entries
}  // namespace pfmab::algorithms
