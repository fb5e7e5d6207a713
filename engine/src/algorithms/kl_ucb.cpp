// The KL-aware baselines (kl_ucb.hpp): local-ucb and centralized-ucb
// (baselines.cpp) with kl-UCB's confidence bounds, through the same
// slot-by-slot engine (sim/slot_by_slot.hpp), so on the same streams,
// trajectory accounting and output. The bounds come from the reward
// family's divergence (families::Divergence, cell.instance().rewards()):
// its upper confidence mean (families/divergence.hpp) for one client's arm,
// and its multiplier for the centralized region.

#include "pfmab/algorithms/kl_ucb.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/families/divergence.hpp"
#include "pfmab/sim/slot_by_slot.hpp"

#include "slot_by_slot_baseline.hpp"

namespace pfmab::algorithms {
namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Safeguarded Newton on the multiplier ends in 1 to 3 steps from the last
// slot's; the cap only ends a stall.
constexpr int kMaxSteps = 200;
// The centralized region is solved to a residual of 1e-12 of sqrt(log t):
// 1e-12 of the width, as the upper confidence mean is.
constexpr double kRegionTolerance = 1e-12;

// The exploration level at slot t: log t, c = 0 in Garivier & Cappe's
// (2011) log t + c log log t, the choice of their experiments and Cappe,
// Garivier, Maillard, Munos & Stoltz's (2013; their bounds take c = 3).
double exploration(std::uint64_t t) { return std::log(static_cast<double>(t)); }

// The statistics of some (client, arm) pairs, each with its kl-UCB index
// U = max{q : n KL(mu_hat, q) <= level}, refreshed every slot from its last
// value: between two slots log t moves by about 1 / t, so one or two Newton
// steps close it.
class KlIndices {
 public:
  KlIndices(const families::Divergence& kl, std::size_t size)
      : kl_(&kl), pulls_(size, 0), sums_(size, 0.0), means_(size, 0.0), indices_(size, kNone) {}

  void observe(std::size_t i, double reward) {
    sums_[i] += reward;
    means_[i] = sums_[i] / static_cast<double>(++pulls_[i]);
  }

  // Every index at the exploration level `level` (every pair pulled).
  void refresh(double level) {
    for (std::size_t i = 0; i < indices_.size(); ++i) {
      indices_[i] = families::upper_confidence_mean(
          *kl_, means_[i], level / static_cast<double>(pulls_[i]), indices_[i]);
    }
  }

  // Whether pairs a and b have the same statistics, so the same index
  // whatever its last bits (found from different warm starts).
  bool same(std::size_t a, std::size_t b) const {
    return pulls_[a] == pulls_[b] && sums_[a] == sums_[b];
  }

  // The arm of the largest index among the pairs [first, first + arms),
  // lowest on ties, equal statistics counting as a tie.
  std::uint32_t argmax(std::size_t first, std::size_t arms) const {
    const std::uint32_t best = first_argmax(&indices_[first], arms);
    for (std::uint32_t b = 0; b < best; ++b) {
      if (same(first + b, first + best)) return b;
    }
    return best;
  }

  std::uint64_t pulls(std::size_t i) const { return pulls_[i]; }
  double sum(std::size_t i) const { return sums_[i]; }
  double mean(std::size_t i) const { return means_[i]; }
  double index(std::size_t i) const { return indices_[i]; }

 private:
  const families::Divergence* kl_;
  std::vector<std::uint64_t> pulls_;
  std::vector<double> sums_, means_, indices_;
};

// local-kl-ucb at one client: each arm once in index order, then the argmax
// of its own kl-UCB indices at log t. It ignores alpha.
class LocalKlUcbClient {
 public:
  LocalKlUcbClient(const sim::Cell& cell, std::size_t /*m*/)
      : kl_(cell.instance().rewards().divergence()),
        arms_(cell.instance().arms()),
        arms_stats_(*kl_, arms_) {}

  std::uint32_t choose(std::uint64_t t) {
    if (t <= arms_) return static_cast<std::uint32_t>(t - 1);
    arms_stats_.refresh(exploration(t));
    return arms_stats_.argmax(0, arms_);
  }

  void observe(std::uint32_t arm, double reward) { arms_stats_.observe(arm, reward); }

 private:
  std::unique_ptr<const families::Divergence> kl_;
  std::size_t arms_;
  KlIndices arms_stats_;
};

// The slope of KL(mu, .) as it leaves mu: 0 (mu / V(mu) at lambda = mu),
// except where the variance vanishes at mu (a Bernoulli or Poisson mean of
// 0), where it starts above (at 1 / V'(mu), 1 for both). Below it a mean does
// not move; families::move_at_slope, which takes the slope to start at 0,
// would bisect towards 0 for its whole step budget.
double starting_slope(const families::Divergence& kl, double mu) {
  if (families::slope_along(kl, mu, 1.0, 0.0) == 0.0) return 0.0;
  return families::slope_along(kl, mu, 1.0, 1e-15 * std::max(std::abs(mu), 1.0));
}

// centralized-kl-ucb: every client's statistics in one place (kl_ucb.hpp).
// For client m and arm k, with T_n, mu_n the pulls and mean of arm k at
// client n and w_n = w_{m,n}, the region's largest mixed mean
// max sum_n w_n lambda_n subject to sum_n T_n KL(mu_n, lambda_n) <= log t
// is, by Lagrange, at lambda_n = mu_n + delta_n(nu) with
// T_n KL'(mu_n, lambda_n) = nu w_n (each delta_n a root of the slope:
// families::move_at_slope, as the C* alternatives find theirs), nu the one
// multiplier that makes the constraint tight. No lambda_n can pass the
// pair's own index (its term alone would spend the level), which bounds
// each move.
class CentralizedKlUcb {
 public:
  explicit CentralizedKlUcb(const sim::Cell& cell)
      : kl_(cell.instance().rewards().divergence()),
        clients_(cell.instance().clients()),
        arms_(cell.instance().arms()),
        alpha_(cell.algorithm_alpha()),
        shared_((1.0 - alpha_) / static_cast<double>(clients_)),
        stats_(*kl_, clients_ * arms_),
        starts_(clients_ * arms_, 0.0),
        multipliers_(clients_ * arms_, kNone),
        solved_at_(clients_ * arms_, kNone),
        derivatives_(clients_ * arms_, kNone),
        moves_(clients_ * arms_ * clients_, kNone),
        indices_(arms_) {}

  // Every client decides from the statistics after slot t - 1.
  std::uint32_t choose(std::size_t m, std::uint64_t t) {
    if (t <= arms_) return static_cast<std::uint32_t>(t - 1);
    if (t != slot_) {
      level_ = exploration(t);
      stats_.refresh(level_);
      slot_ = t;
    }
    // alpha = 1: the other clients weigh nothing, the region is client m's
    // own and its largest mean its own index: local-kl-ucb's decisions.
    if (shared_ == 0.0) return stats_.argmax(m * arms_, arms_);
    // alpha = 0: every client weighs every client alike, one region per arm
    // for all of them
    if (alpha_ == 0.0 && m > 0) return common_;
    for (std::size_t k = 0; k < arms_; ++k) indices_[k] = region_max(m, k);
    std::uint32_t best = first_argmax(indices_.data(), arms_);
    for (std::uint32_t b = 0; b < best; ++b) {
      if (same_region(m, b, best)) {
        best = b;
        break;
      }
    }
    common_ = best;
    return best;
  }

  void observe(std::size_t m, std::uint32_t arm, double reward) {
    const std::size_t i = m * arms_ + arm;
    stats_.observe(i, reward);
    starts_[i] = starting_slope(*kl_, stats_.mean(i));
    // arm k's region moved for every client: its last solve is only a start
    for (std::size_t n = 0; n < clients_; ++n) solved_at_[n * arms_ + arm] = kNone;
  }

  void end_slot() {}

 private:
  double weight(std::size_t m, std::size_t n) const { return n == m ? alpha_ + shared_ : shared_; }

  // What a pair puts in a region: its statistics, or only its mean where
  // that is the top of the range (a Bernoulli mean of 1: lambda = 1 at any
  // number of pulls).
  std::pair<std::uint64_t, double> term(std::size_t i) const {
    if (stats_.mean(i) >= kl_->high_mean()) return {0, stats_.mean(i)};
    return {stats_.pulls(i), stats_.sum(i)};
  }

  // Whether client m's regions of arms a and b are the same: the same term
  // at client m (weight alpha + shared; at alpha = 0 it weighs as the
  // others) and the same terms, in any order, at the clients of weight
  // shared. Then their indices are equal, whatever last bits the solves
  // from different starts left: a tie, to the lowest arm.
  bool same_region(std::size_t m, std::uint32_t a, std::uint32_t b) {
    const std::size_t own = alpha_ > 0.0 ? m : clients_;
    if (own < clients_ && term(own * arms_ + a) != term(own * arms_ + b)) return false;
    others_a_.clear();
    others_b_.clear();
    for (std::size_t n = 0; n < clients_; ++n) {
      if (n == own) continue;
      others_a_.push_back(term(n * arms_ + a));
      others_b_.push_back(term(n * arms_ + b));
    }
    std::sort(others_a_.begin(), others_a_.end());
    std::sort(others_b_.begin(), others_b_.end());
    return others_a_ == others_b_;
  }

  // U_{k,m}(t), by safeguarded Newton on h(nu) = sqrt(sum_n T_n KL(mu_n,
  // lambda_n(nu))) - sqrt(log t), from the last slot's nu. h is linear in nu
  // for Gaussian rewards (one step closes it), near-linear for the others.
  // Where no client pulled arm k since, h at the last nu is known without
  // evaluating it: the last solve's residual (within the tolerance, taken
  // as 0) plus the change of sqrt(log t); so is its derivative: the first
  // Newton step is free.
  double region_max(std::size_t m, std::size_t k) {
    double& nu = multipliers_[m * arms_ + k];
    double& solved_at = solved_at_[m * arms_ + k];
    double* moves = &moves_[(m * arms_ + k) * clients_];
    const double root = std::sqrt(level_);
    double mixed = 0.0, information = 0.0, derivative = 0.0;
    // h at x; sets the moves, the mixed mean and information they give, and
    // dh/dx
    const auto h = [&](double x) {
      double spread = 0.0;
      information = 0.0;
      mixed = 0.0;
      for (std::size_t n = 0; n < clients_; ++n) {
        const std::size_t i = n * arms_ + k;
        const double w = weight(m, n), mu = stats_.mean(i);
        const auto pulls = static_cast<double>(stats_.pulls(i));
        const double reach = stats_.index(i) - mu, slope = x * w / pulls;
        moves[n] = reach > 0.0 && slope > starts_[i]
                       ? families::move_at_slope(*kl_, mu, 1.0, reach, slope, moves[n])
                       : 0.0;
        const double lambda = mu + moves[n];
        if (moves[n] > 0.0) information += pulls * (*kl_)(mu, lambda);
        // d delta_n / dx = w_n / (T_n KL''), while inside its reach
        const double c = kl_->curvature(mu, lambda);
        if (moves[n] < reach && c > 0.0 && std::isfinite(c)) spread += w * w / (pulls * c);
        mixed += w * lambda;
      }
      const double s = std::sqrt(information);
      // d sum_n T_n KL_n / dx = x spread; dh = that / (2 s)
      derivative = s > 0.0 ? x * spread / (2.0 * s) : 0.0;
      return s - root;
    };

    // nowhere to move (every mean at the top of its range, or known)
    double at = 0.0, reachable = 0.0;
    for (std::size_t n = 0; n < clients_; ++n) {
      const std::size_t i = n * arms_ + k;
      at += weight(m, n) * stats_.mean(i);
      reachable += weight(m, n) * (stats_.index(i) - stats_.mean(i));
    }
    if (!(reachable > 0.0)) return at;
    if (!(nu > 0.0)) {
      // the quadratic approximation's nu (exact for Gaussian rewards):
      // sum_n T_n KL_n ~ nu^2 / 2 sum_n w_n^2 / (T_n KL''(mu_n, mu_n))
      double spread = 0.0;
      for (std::size_t n = 0; n < clients_; ++n) {
        const std::size_t i = n * arms_ + k;
        const double w = weight(m, n), mu = stats_.mean(i);
        const double c = kl_->curvature(mu, mu);
        if (c > 0.0 && std::isfinite(c)) {
          spread += w * w / (static_cast<double>(stats_.pulls(i)) * c);
        }
      }
      nu = spread > 0.0 ? std::sqrt(2.0 * level_ / spread) : 1.0;
    } else if (solved_at > 0.0 && derivatives_[m * arms_ + k] > 0.0) {
      nu += (root - solved_at) / derivatives_[m * arms_ + k];
    }
    // the bracket's ends, their mixed means and information (nu = 0: no move)
    double lo = 0.0, hi = kInfinity;
    double mixed_lo = at, mixed_hi = kNone, information_lo = 0.0, information_hi = kNone;
    for (int step = 0; step < kMaxSteps; ++step) {
      const double f = h(nu);
      if (std::abs(f) <= kRegionTolerance * root) break;
      if (f < 0.0) {
        lo = nu;
        mixed_lo = mixed;
        information_lo = information;
      } else {
        hi = nu;
        mixed_hi = mixed;
        information_hi = information;
      }
      double next = derivative > 0.0 ? nu - f / derivative : kInfinity;
      if (!(next > lo && next < hi)) next = std::isinf(hi) ? 2.0 * nu : 0.5 * (lo + hi);
      if (std::isfinite(hi) && hi - lo <= 1e-15 * hi) {
        // h jumps across 0: a linear KL (the Poisson KL(0, q) = q) moves
        // its mean all at once at its one slope, or a move reached its
        // bound. The maximum lies between the ends' moves (they differ only
        // in the jumping terms, whose information is linear in them), where
        // the information meets the level.
        const double share = (level_ - information_lo) / (information_hi - information_lo);
        mixed = mixed_lo + share * (mixed_hi - mixed_lo);
        break;
      }
      nu = next;
    }
    solved_at = root;
    derivatives_[m * arms_ + k] = derivative;
    return mixed;
  }

  std::unique_ptr<const families::Divergence> kl_;
  std::size_t clients_, arms_;
  double alpha_;            // the algorithm's
  double shared_;           // (1 - alpha) / M: every client's weight in the global part
  KlIndices stats_;         // per (client, arm), row-major: each pair's own kl-UCB index
  std::uint64_t slot_ = 0;  // the slot level_ and the indices are for
  double level_ = 0.0;
  std::vector<double> starts_;       // per (client, arm): starting_slope at its mean
  std::uint32_t common_ = 0;         // at alpha = 0, client 0's choice this slot
  std::vector<double> multipliers_;  // per (client, arm): nu at the last solve
  std::vector<double> solved_at_;    // per (client, arm): its sqrt(log t); NaN once arm k moved
  std::vector<double> derivatives_;  // per (client, arm): dh/dnu there
  std::vector<double> moves_;        // per (client, arm, client n): delta_n then
  std::vector<double> indices_;      // scratch: client m's U_{k,m}
  std::vector<std::pair<std::uint64_t, double>> others_a_, others_b_;  // scratch of same_region
};

// Both read the family's divergence.
// What kl-UCB's indices add to a replication, for the progress display's
// first estimate (sim::Algorithm::planning_cost).
//
// Every (client, arm) pair's own index is a Newton solve warm-started from
// its last: about 35 ns per client, slot and arm once the indices settle,
// and up to 85 ns more while the arms are still pulled often and their
// indices move, fading over the first few 10^4 slots: 85 e^(-t / 20,000)
// ns at slot t. Fitted to local-kl-ucb's processor time per replication on
// the synthetic 4 x 9 game and MovieLens 10 x 40 at T = 10^3 to 10^6
// (2026-11-28, one thread, at load 10: 91 to 135 ns per client, slot and
// arm up to T = 10^4, 42 to 52 at 10^5, 45 at 10^6), the same session as
// the regions' constant below was checked in (bench/README.md's "kl-UCB
// baselines", at load 2, has 37 ns at 10^5 on the synthetic game, 0.7 of
// this; the tracker rescales, but the indices' share against the regions'
// must hold). It read 30 ns whatever T before: a quarter to a third of the
// cost at T = 10^4.
//
// The centralized regions add about 60 ns per client, slot and arm for each
// client that solves them (bench/README.md: 223 ns at M = 4, 1,340 at
// M = 20, with the indices; 57 to 68 the same day as the indices above): every client at 0 < alpha < 1, client 0 alone
// at alpha = 0 (one region of each arm for all), none at alpha = 1 (a
// client's region is its own index). They read 60 M ns at every alpha
// before: 2 to 4 times the cost at alpha 0 and 1 and 0.8 of it in between,
// so that a rate learned at alpha 0 said 2.5 times too little of the cells
// after it (issue 38).
double local_index_cost(const sim::Cell& cell) {
  constexpr double settled = 35.0, early = 85.0, settling = 20'000.0;
  const auto horizon = static_cast<double>(cell.horizon());
  const double per_client_arm =
      settled * horizon + early * settling * (1.0 - std::exp(-horizon / settling));
  return per_client_arm * static_cast<double>(cell.instance().clients()) *
         static_cast<double>(cell.instance().arms());
}
double centralized_indices_cost(const sim::Cell& cell) {
  const double alpha = cell.algorithm_alpha();
  const double solving = alpha == 0.0   ? 1.0
                         : alpha == 1.0 ? 0.0
                                        : static_cast<double>(cell.instance().clients());
  return local_index_cost(cell) + 60.0 * solving * client_slot_arms(cell);
}

std::string refuses_without_divergence(const families::RewardFamily& rewards) {
  if (rewards.divergence()) return {};
  return fmt::format("its index reads the rewards' KL divergence; {} rewards have none ({})",
                     rewards.name(), rewards.family().no_divergence());
}

// The centralized region's maximum is found by its multiplier, which needs
// the region convex.
std::string refuses_nonconvex_region(const families::RewardFamily& rewards) {
  if (auto refusal = refuses_without_divergence(rewards); !refusal.empty()) return refusal;
  if (rewards.divergence()->convex()) return {};
  return fmt::format(
      "its confidence region needs KL(mu, q) convex in q; for {} rewards it is not past 2 mu, so "
      "the region's largest mixed mean is not found by its multiplier (local-kl-ucb runs on them)",
      rewards.name());
}

using LocalKlUcb = SlotBySlotBaseline<sim::play_apart<LocalKlUcbClient>, refuses_without_divergence,
                                      local_index_cost>;
using CentralizedKl = SlotBySlotBaseline<sim::play_together<CentralizedKlUcb>,
                                         refuses_nonconvex_region, centralized_indices_cost>;

}  // namespace

sim::AlgorithmChoice local_kl_ucb() {
  return [](const sim::CellContext&) { return std::make_shared<LocalKlUcb>("local-kl-ucb"); };
}

sim::AlgorithmChoice centralized_kl_ucb() {
  return
      [](const sim::CellContext&) { return std::make_shared<CentralizedKl>("centralized-kl-ucb"); };
}

namespace entries {

extern const AlgorithmEntry local_kl_ucb{"local-kl-ucb", nullptr,
                                         [](const io::CellValues&, const sim::CellContext& cell) {
                                           return algorithms::local_kl_ucb()(cell);
                                         },
                                         kLocalIgnores};
extern const AlgorithmEntry centralized_kl_ucb{
    "centralized-kl-ucb", nullptr,
    [](const io::CellValues&, const sim::CellContext& cell) {
      return algorithms::centralized_kl_ucb()(cell);
    },
    kCentralizedIgnores};

}  // namespace entries
}  // namespace pfmab::algorithms
