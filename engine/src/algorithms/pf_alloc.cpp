// pf-alloc: phased exploration at the optimal allocation (docs/pf-alloc.md).
// A batched form of OSSB (Combes, Magureanu and Proutiere, NeurIPS 2017) for
// PF-MAB: every phase the server solves the program of C* (docs/allocation.md)
// with the estimated means and asks each client for the pulls that bring its
// counts to (1 + margin) x_hat_{k,m} log t, t the phase's end; the rest of
// the phase the client plays its estimated best arm, and those pulls are
// samples too. Each arm that one client explores informs every client
// through the global mean, so a client for which an arm is optimal supplies
// its information at no cost: the program says who explores what.
//
// Phase 1 is n0 pulls of every arm by every client; a phase begun at slot t
// then ends at 2 t + K n0 (doubling) or, as far as the estimates tell every
// client's exploited arm apart, up to t^(1 + margin), or t^2 once every
// client has fixed its arm, or as long as its exploitation risks less regret
// than its exchanges cost: fewer exchanges, 2 per client and phase
// (docs/pf-alloc.md, "Communication"). Within a long phase each client
// tracks its targets, known functions of the slot, in doubling
// sub-intervals, with no exchange. A client fixes its arm once its
// estimated best arm's mixed mean exceeds every other's by the width
// sqrt(2 (V_k + V_best) log T), V the variance of the mixed estimator.
//
// Gaussian rewards are planned by the closed-form program at their sigma.
// Every other family with a KL divergence is planned by the KL program
// (theory::kl_optimal_allocation), and its estimates are told apart by the
// generalized likelihood ratio of the same alternatives in place of the
// width (docs/pf-alloc.md, "Other reward families").
//
// This file is the whole algorithm; registering it is the line X(pf_alloc)
// in registry.cpp.

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/model/mixed_model.hpp"
#include "pfmab/sim/phased.hpp"
#include "pfmab/theory/allocation.hpp"
#include "pfmab/theory/games.hpp"
#include "pfmab/theory/kl_allocation.hpp"
#include "pfmab/theory/kl_alternative.hpp"
#include "pfmab/util/error.hpp"

namespace pfmab::algorithms {
namespace {

void check_margin(const io::Value& v) {
  const double margin = std::get<double>(v);
  if (!(margin >= 0.0 && margin <= 10.0)) {
    throw UserError(fmt::format("the margin must be between 0 and 10, not {}", margin));
  }
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const std::array<io::Parameter, 2> options{{
    {.key = "algorithm.margin",
     .flags = "--margin",
     .type = io::ValueType::real,
     .fallback = "0.2",
     .sweeps = true,
     .help = "pf-alloc: each phase's targets are (1 + margin) x_hat log t",
     .check = check_margin},
    {.key = "algorithm.initial_pulls",
     .flags = "--initial-pulls",
     .type = io::ValueType::whole,
     .fallback = "20",
     .sweeps = true,
     .help = "pf-alloc: pulls of each arm by each client in the first phase",
     .least = 1,
     .most = std::uint64_t{1} << 32},
}};
#pragma GCC diagnostic pop
const OptionGroup alloc_options{"pf-alloc", options};

// An arm in doubt is pulled at least this many times log t by each client
// (docs/pf-alloc.md, rule 4).
constexpr double kInDoubtPulls = 2.0;

// Each phase's allocation is solved to this relative gap: the targets it
// sets are plug-in estimates that the margin already pads by 20%, and a
// solve to 1e-3 takes a tenth of the Newton steps of an exact one.
constexpr double kPlanGap = 1e-3;

// The last allocation plans a phase until an estimated gap moves by more than
// this share of the gap it was solved for (docs/pf-alloc.md, rule 9): a
// target goes as 1 / gap^2, so it is then off by at most about 20%, what
// the margin pads; the targets' log t is always the phase's own.
constexpr double kReplanShare = 0.1;

// Once every client has fixed its arm, which it does at confidence log T,
// the next phase ends at the square of the slots elapsed: no exploitation is
// at stake, the exchanges only refresh x_hat (docs/pf-alloc.md).
constexpr double kFixedGrowth = 2.0;

// The family's KL divergence where it is not the Gaussian one (whose
// program the closed-form solver takes), else nullptr. A family with none,
// or whose KL is not convex, is refused first (PfAlloc::refuses).
std::unique_ptr<const families::Divergence> kl_divergence(const families::RewardFamily& rewards) {
  auto kl = rewards.divergence();
  if (kl && !std::isnan(kl->quadratic_sigma())) kl.reset();
  return kl;
}

// Whether pf-alloc plans a game of `clients` x `arms` with `rewards` by the
// KL program: a family with a KL other than the Gaussian one, unless the
// game has more pulls to plan than the KL program's dense solver takes in
// good time (theory::kMaxKlVariables) and the rewards are sub-Gaussian;
// then the Gaussian program plans at their sigma (Bernoulli: 1/2), sound
// but not tight (docs/pf-alloc.md, "Other reward families").
bool plans_with_kl(const families::RewardFamily& rewards, std::size_t clients, std::size_t arms) {
  return kl_divergence(rewards) != nullptr && (clients * (arms - 1) <= theory::kMaxKlVariables ||
                                               std::isnan(rewards.subgaussian_sigma()));
}

struct AllocParams {
  double margin = 0.2;
  std::uint64_t initial_pulls = 20;
};

// One replication's clients and server.
class AllocState final : public sim::PhasedState {
 public:
  AllocState(const sim::Cell& cell, AllocParams params)
      : params_(params),
        alpha_(cell.algorithm_alpha()),
        clients_(cell.instance().clients()),
        arms_(cell.instance().arms()),
        horizon_(cell.horizon()),
        kl_(kl_divergence(cell.instance().rewards())),
        // the Gaussian program plans with the rewards' sigma (plans_with_kl)
        sigma_(cell.instance().rewards().subgaussian_sigma()),
        kl_plan_(plans_with_kl(cell.instance().rewards(), clients_, arms_)),
        variance_unit_(kl_ ? 1.0 : sigma_ * sigma_),
        comm_cost_(cell.spec().comm_cost),
        every_arm_(arms_),
        counts_(clients_ * arms_, 0),
        sums_(clients_ * arms_, 0.0),
        reported_counts_(clients_ * arms_, 0),
        reported_sums_(clients_ * arms_, 0.0),
        reported_pulls_(kl_ ? clients_ * arms_ : 0, 0.0),
        tests_(kl_ ? clients_ : 0),
        local_means_(clients_ * arms_, 0.0),
        totals_(arms_),
        explore_(clients_ * arms_, 0),
        best_(clients_, 0),
        fixed_(clients_),
        estimated_means_(clients_ * arms_, 0.0),
        estimated_variances_(clients_ * arms_, 0.0),
        estimated_(clients_, 0),
        tied_(clients_ * arms_, 0),
        gaps_(clients_ * arms_, 0.0),
        wanted_(arms_, 0.0) {
    std::iota(every_arm_.begin(), every_arm_.end(), 0u);
  }

  bool finished() const override { return false; }  // it explores at the allocation to T

  // The server plans the phase from the reports: phase 1 is n0 pulls of
  // every arm; later phases bring every client to its targets.
  void begin_phase(std::uint64_t phase, std::span<const std::uint32_t>) override {
    first_ = phase == 1;
    start_ = elapsed_;
    elapsed_ = phase_end();
    length_ = elapsed_ - start_;
    if (first_) return;
    plan_targets(elapsed_);
    // plan()'s sub-intervals, the same for every client: their ends
    // elapsed_ / 2^i, i = I, ..., 0, the first in [2 start_, 4 start_), and
    // the logarithms of the ends
    int last = 0;
    while (std::ldexp(elapsed_, -(last + 1)) >= 2.0 * start_) ++last;
    sub_ends_.clear();
    sub_logs_.clear();
    for (int i = last; i >= 0; --i) {
      sub_ends_.push_back(std::ldexp(elapsed_, -i));
      sub_logs_.push_back(std::log(sub_ends_.back()));
    }
  }

  void plan(std::size_t m, std::vector<sim::Run>& runs) override {
    const auto add = [&](std::span<const std::uint32_t> arms, std::uint64_t rounds) {
      sim::Run run;
      run.arms = arms;
      run.rounds = rounds;
      runs.push_back(run);
    };
    if (first_) {
      add(every_arm_, params_.initial_pulls);
      return;
    }
    // Sub-intervals ending at elapsed_ / 2^i, i = I, ..., 0, the first
    // ending in [2 start_, 4 start_) (begin_phase() lists them): a doubling
    // phase is one. Arm k's target
    // at a sub-interval's end t is the phase's (reported count + explore_)
    // times log t / log elapsed_, so (1 + margin) x_hat log t where
    // plan_targets() set (1 + margin) x_hat log elapsed_, and explore_ is met
    // by the phase's end in any case. Each sub-interval explores up to its
    // targets, then exploits to its end.
    const double log_end = sub_logs_.back();         // (the last sub-interval ends at elapsed_)
    std::vector<std::uint64_t>& reached = scratch_;  // per arm, the count the runs so far reach
    reached.assign(reported_counts_.begin() + static_cast<std::ptrdiff_t>(m * arms_),
                   reported_counts_.begin() + static_cast<std::ptrdiff_t>((m + 1) * arms_));
    double played = 0.0;  // slots of this phase planned so far
    for (std::size_t interval = 0; interval < sub_ends_.size(); ++interval) {
      const double end = sub_ends_[interval], log_at_end = sub_logs_[interval];
      const bool whole = interval + 1 == sub_ends_.size();  // the phase's end
      for (std::uint32_t k = 0; k < arms_; ++k) {
        const auto goal = reported_counts_[m * arms_ + k] + explore_[m * arms_ + k];
        const auto target =
            whole ? goal
                  : std::min(goal, static_cast<std::uint64_t>(std::ceil(static_cast<double>(goal) *
                                                                        log_at_end / log_end)));
        if (target <= reached[k]) continue;
        add({&every_arm_[k], 1}, target - reached[k]);
        played += static_cast<double>(target - reached[k]);
        reached[k] = target;
      }
      const double exploit = std::min(end - start_, 0x1p62) - played;
      if (exploit >= 1.0) {
        add({&every_arm_[exploit_arm(m)], 1}, static_cast<std::uint64_t>(exploit));
        played += std::floor(exploit);
      }
    }
  }

  void record(std::size_t m, std::uint32_t arm, std::uint64_t pulls, double sum) override {
    counts_[m * arms_ + arm] += pulls;
    sums_[m * arms_ + arm] += sum;
  }

  std::uint32_t exploit_arm(std::size_t m) const override { return fixed_[m].value_or(best_[m]); }

  // The participants' counts and sums, broadcast to every client, and what
  // the server reads off them: each client's local means and, per arm, their
  // total and the total of 1 / N (so that a client's mixed estimate costs
  // O(K), not O(M K)).
  void aggregate(std::span<const std::uint32_t> participants) override {
    participants_ = participants.size();
    std::fill(estimated_.begin(), estimated_.end(), std::uint8_t{0});
    for (const auto m : participants) {
      std::copy_n(counts_.begin() + static_cast<std::ptrdiff_t>(m * arms_), arms_,
                  reported_counts_.begin() + static_cast<std::ptrdiff_t>(m * arms_));
      std::copy_n(sums_.begin() + static_cast<std::ptrdiff_t>(m * arms_), arms_,
                  reported_sums_.begin() + static_cast<std::ptrdiff_t>(m * arms_));
    }
    for (std::size_t k = 0; k < arms_; ++k) {
      ArmTotals& arm = totals_[k];
      arm = {};
      double reported_means = 0.0;
      for (std::size_t n = 0; n < clients_; ++n) {
        const auto count = reported_counts_[n * arms_ + k];
        if (count == 0) {
          arm.unreported += 1;
          continue;
        }
        const double mean = reported_sums_[n * arms_ + k] / static_cast<double>(count);
        local_means_[n * arms_ + k] = mean;
        reported_means += mean;
        arm.inverse_counts +=
            reward_variance(mean, static_cast<double>(count)) / static_cast<double>(count);
      }
      // a client that has not reported arm k yet (partial participation)
      // takes the reporting clients' average
      const auto reporting = static_cast<double>(clients_ - arm.unreported);
      const double fallback = reporting > 0.0 ? reported_means / reporting : 0.0;
      for (std::size_t n = 0; n < clients_; ++n) {
        if (reported_counts_[n * arms_ + k] == 0) local_means_[n * arms_ + k] = fallback;
        arm.means += local_means_[n * arms_ + k];
        if (kl_) {
          reported_pulls_[n * arms_ + k] = static_cast<double>(reported_counts_[n * arms_ + k]);
        }
      }
    }
  }

  // Client m's estimated best arm, and its arm fixed once the others are
  // told apart from it at confidence log T.
  void update(std::size_t m) override {
    const auto estimate = mixed_estimates(m);
    estimated_[m] = 1;
    auto best = static_cast<std::uint32_t>(
        std::max_element(estimate.means.begin(), estimate.means.end()) - estimate.means.begin());
    // Discrete rewards (a family with a KL: Bernoulli, Poisson) tie two
    // estimates exactly by chance, sample means at the same fraction; the
    // program takes a tied arm for one of the best (rule 7), pulled about T
    // times, and if the client never played it, its count would stay where
    // the tie began. So the client exploits, of the arms tied for the
    // largest estimate, the one it has pulled least: a chance tie breaks at
    // the next exchange, and an exact one (noiseless rewards) costs nothing.
    // Gaussian estimates tie only without noise: the lowest index, as before.
    if (kl_) {
      const auto own = reported_counts_.begin() + static_cast<std::ptrdiff_t>(m * arms_);
      for (std::uint32_t k = best + 1; k < arms_; ++k) {
        if (estimate.means[k] == estimate.means[best] && own[k] < own[best]) best = k;
      }
    }
    best_[m] = best;
    if (fixed_[m]) return;
    const double confidence = std::log(static_cast<double>(horizon_));
    for (std::uint32_t k = 0; k < arms_; ++k) {
      if (k != best && !told_apart(m, k, best, confidence)) return;
    }
    fixed_[m] = best;
  }

  // How far the next phase may reach (docs/pf-alloc.md, "Communication"):
  // to t^2 once every client has fixed its arm; otherwise to t^(1 + margin)
  // at most, and no further than the slot e^L, L the least confidence at
  // which a client not fixed tells its exploited arm apart from every other;
  // and, whatever those say, as many slots past t as the exchanges it saves
  // are worth in the regret its exploitation risks.
  void end_phase() override {
    // every client's estimates, for this and the next plan_targets(): those
    // update() did not compute (clients that sat the phase out) are stale
    for (std::size_t m = 0; m < clients_; ++m) {
      if (estimated_[m] == 0) mixed_estimates(m);
      estimated_[m] = 1;
    }
    bool every_fixed = true;
    reach_ = std::numeric_limits<double>::infinity();
    // the regret per slot of exploiting the estimated best arms (only
    // weighed against exchanges that cost something)
    double risk = 0.0;
    for (std::size_t m = 0; m < clients_; ++m) {
      if (fixed_[m]) continue;
      every_fixed = false;
      const auto estimate = estimates(m);
      const auto arm = exploit_arm(m);
      for (std::uint32_t k = 0; k < arms_; ++k) {
        if (k == arm) continue;
        const double gap = std::max(0.0, estimate.means[arm] - estimate.means[k]);
        const double variance = estimate.variances[k] + estimate.variances[arm];
        reach_ = std::min(reach_, kl_ ? likelihood_ratio(m, k, arm) : gap * gap / (2.0 * variance));
        if (comm_cost_ > 0.0) risk += expected_shortfall(gap, std::sqrt(variance));
      }
    }
    growth_ = every_fixed ? kFixedGrowth : 1.0 + params_.margin;
    // A phase's exchanges cost 2 C per participant; a phase longer by s
    // slots risks about `risk` s of exploitation regret. While some client
    // is not fixed, the phase may run until the two are equal: then its
    // exploitation costs no more than the exchanges of the phase it saves.
    const double exchanges = 2.0 * comm_cost_ * static_cast<double>(participants_);
    patience_ = every_fixed || exchanges == 0.0 ? 0.0 : exchanges / risk;
  }

  // O_m: the fixed arm, or, like the baselines that never fix one, the arm
  // client m pulled most (lowest index on ties). An allocation gathers only
  // about (1 + margin) log t of information per constraint, so the test at
  // log T often passes late; what a client plays is its answer.
  std::optional<std::uint32_t> fixed_arm(std::size_t m) const override {
    if (fixed_[m]) return fixed_[m];
    const auto own = counts_.begin() + static_cast<std::ptrdiff_t>(m * arms_);
    return static_cast<std::uint32_t>(std::max_element(own, own + arms_) - own);
  }

 private:
  // Client m's row of estimated_means_ and estimated_variances_.
  struct Estimates {
    std::span<const double> means;      // mu_hat'_{k,m}
    std::span<const double> variances;  // of each

    // Whether arm k's mixed mean is below `best`'s by more than the width
    // sqrt(2 (V_k + V_best) confidence) of their difference (Gaussian
    // rewards; AllocState::told_apart for every family).
    bool told_apart(std::size_t k, std::size_t best, double confidence) const {
      return means[best] - means[k] >
             std::sqrt(2.0 * (variances[k] + variances[best]) * confidence);
    }
  };

  // Per arm, over the clients: the total of their local means (a client
  // that has not reported the arm counted at the reporters' average), the
  // total of v / N over those that reported it (v: reward_variance), and how
  // many have not.
  struct ArmTotals {
    double means = 0.0;
    double inverse_counts = 0.0;
    std::size_t unreported = 0;
  };

  Estimates estimates(std::size_t m) const {
    const auto row = static_cast<std::ptrdiff_t>(m * arms_);
    return {{estimated_means_.begin() + row, arms_}, {estimated_variances_.begin() + row, arms_}};
  }

  // Client m's row of estimates from the last broadcast:
  // mu_hat'_{k,m} = beta mu_hat_{k,m} + gamma sum_{n != m} mu_hat_{k,n}
  // (beta = alpha + (1 - alpha) / M, gamma = (1 - alpha) / M) and its
  // variance beta^2 v_{k,m} / N_{k,m} + gamma^2 sum_{n != m} v_{k,n} / N_{k,n},
  // v a reward's variance (sigma^2; with a KL, the family's at the
  // estimate: reward_variance), infinite while a count it weighs is 0. Written in place, once per
  // client and phase (update(), or end_phase() for a client that sat the
  // phase out), and read by end_phase() and the next plan_targets(): no
  // allocation per phase.
  Estimates mixed_estimates(std::size_t m) {
    const double count_m = static_cast<double>(clients_);
    const double beta = alpha_ + (1.0 - alpha_) / count_m, gamma = (1.0 - alpha_) / count_m;
    double* means = estimated_means_.data() + m * arms_;
    double* variances = estimated_variances_.data() + m * arms_;
    for (std::size_t k = 0; k < arms_; ++k) {
      const ArmTotals& arm = totals_[k];
      const double own = local_means_[m * arms_ + k];
      means[k] = beta * own + gamma * (arm.means - own);
      const auto count = static_cast<double>(reported_counts_[m * arms_ + k]);
      const double own_inverse = count > 0.0 ? reward_variance(own, count) / count : 0.0;
      const std::size_t others_unreported = arm.unreported - (count > 0.0 ? 0 : 1);
      if ((beta > 0.0 && count == 0.0) || (gamma > 0.0 && others_unreported > 0)) {
        variances[k] = std::numeric_limits<double>::infinity();
        continue;
      }
      const double others = std::max(0.0, arm.inverse_counts - own_inverse);
      variances[k] = variance_unit_ * (beta * beta * own_inverse + gamma * gamma * others);
    }
    return estimates(m);
  }

  // The slot the phase beginning now ends at: the doubling 2 t + K n0 (its
  // first K n0), or t^growth_ capped at e^reach_, or t + patience_, whichever
  // is latest, t the slots elapsed; the horizon at the latest.
  double phase_end() const {
    const double doubling = 2.0 * elapsed_ + static_cast<double>(params_.initial_pulls * arms_);
    const double grown = std::min(std::pow(elapsed_, growth_), std::exp(reach_));
    const double patient = elapsed_ + patience_;
    return std::min(static_cast<double>(horizon_),
                    std::max({doubling, std::floor(grown), std::floor(patient)}));
  }

  // E[(mu_k - mu_best)^+] for mu_k - mu_best ~ N(-gap, sd^2), the
  // estimates' law of the difference (for a family with a KL, its normal
  // approximation, with the family's variance at the estimates): the
  // expected regret per slot of
  // exploiting the estimated best arm rather than arm k, sd phi(gap / sd) -
  // gap Q(gap / sd). 0 for a difference known exactly.
  static double expected_shortfall(double gap, double sd) {
    if (sd == 0.0) return 0.0;
    if (std::isinf(sd)) return sd;
    const double z = gap / sd;
    const double density = std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi);
    const double tail = 0.5 * std::erfc(z / std::numbers::sqrt2);
    return std::max(0.0, sd * density - gap * tail);
  }

  // explore_: the pulls that bring each client's count of each arm but its
  // best to (1 + margin) x_hat log t, x_hat the allocation of the estimated
  // game, scaled down together if they exceed the phase. An arm whose
  // estimate is not below the best's is tied with it: one of the client's
  // best arms for the program, with no constraint (docs/pf-alloc.md, rule
  // 7), so that a tie in the estimates leaves the program finite.
  void plan_targets(double phase_end) {
    const double log_t = std::log(phase_end);
    std::vector<std::uint8_t>& tied = tied_;
    std::vector<double>& gaps = gaps_;
    tied.resize(clients_ * arms_);  // (after a swap with the planned ones, which may be empty)
    gaps.resize(clients_ * arms_);
    for (std::size_t n = 0; n < clients_; ++n) {
      const auto means = estimates(n).means;
      const auto best = exploit_arm(n);
      for (std::size_t k = 0; k < arms_; ++k) {
        tied[n * arms_ + k] = means[k] >= means[best];
        gaps[n * arms_ + k] = tied[n * arms_ + k] != 0 ? 0.0 : means[best] - means[k];
      }
    }
    if (replan_needed(tied, gaps)) {
      // Cold: a warm start from the last phase's program took as long here
      // (it is a few Newton steps either way) and moved the near-tied games'
      // regret (docs/pf-alloc.md, rule 9).
      const model::MixedModel estimated(local_means_, clients_, alpha_);
      if (kl_plan_) {
        allocation_ = theory::kl_optimal_allocation(estimated, *kl_, kPlanGap, {}, tied);
      } else {
        solver_.solve(estimated, sigma_, theory::Coupling::coupled, kPlanGap, {}, nullptr, tied,
                      allocation_);
      }
      planned_tied_.swap(tied);  // tied_ and gaps_ are rewritten whole next phase
      planned_gaps_.swap(gaps);
    }
    const auto& allocation = allocation_;
    // The estimates and the program's mixed means round differently: an arm
    // a rounding below the best here can be level with it there, which
    // leaves the program infinite. Such a phase asks for rule 4's pulls
    // only, and the next one solves again.
    const bool planned = std::isfinite(allocation.constant);
    if (!planned) planned_tied_.clear();
    for (std::size_t n = 0; n < clients_; ++n) {
      const auto best = exploit_arm(n);
      std::vector<double>& wanted = wanted_;
      std::fill(wanted.begin(), wanted.end(), 0.0);
      double total = 0.0;
      for (std::size_t k = 0; k < arms_; ++k) {
        if (k == best) continue;
        double target = planned && planned_tied_[n * arms_ + k] == 0
                            ? (1.0 + params_.margin) * allocation.pulls[n * arms_ + k] * log_t
                            : 0.0;
        // An arm not yet told apart from the best at confidence log t may
        // be the best one, underestimated: its own pulls grow with log t
        // whatever the plug-in allocation says, so that no estimate starves.
        if (!told_apart(n, k, best, log_t)) {
          target = std::max(target, kInDoubtPulls * log_t);
        }
        // A phase at most doubles a count: a target read from few samples
        // (a gap that looks tiny) commits at most as many pulls as the
        // estimate rests on before it is read again.
        const auto count = static_cast<double>(reported_counts_[n * arms_ + k]);
        wanted[k] = std::clamp(target - count, 0.0,
                               std::max(count, static_cast<double>(params_.initial_pulls)));
        total += wanted[k];
      }
      const double scale = total > length_ ? length_ / total : 1.0;
      for (std::size_t k = 0; k < arms_; ++k) {
        explore_[n * arms_ + k] = static_cast<std::uint64_t>(std::ceil(wanted[k] * scale));
      }
    }
  }

  // The variance of one reward at the estimate `mean` of `count` pulls, in
  // units of variance_unit_: 1 for Gaussian rewards; with a KL, 1 /
  // KL''(mu, mu), the Fisher information's inverse, the variance of a
  // natural exponential family at its mean (Bernoulli mu (1 - mu)). An
  // estimate at the range's end (all successes, all failures, no Poisson
  // event) is taken 1 / (2 N) inside it, half a pull's worth, as the
  // Krichevsky-Trofimov estimator (s + 1/2) / (N + 1) moves it: its variance
  // there is 0, and a risk of 0 (end_phase) would let a phase exploit a
  // chance tie at the end (a Bernoulli arm of mean 0.9 seen 20 times a
  // success beside one of mean 1) for as long as the horizon.
  double reward_variance(double mean, double count) const {
    if (!kl_) return 1.0;
    const double inside = 0.5 / count;
    const double mu = std::clamp(mean, kl_->low_mean() + inside, kl_->high_mean() - inside);
    const double curvature = kl_->curvature(mu, mu);
    return curvature > 0.0 ? 1.0 / curvature : 0.0;
  }

  // Whether client m's estimates tell arm k's mixed mean below `best`'s at
  // `confidence`: by the width sqrt(2 (V_k + V_best) confidence) for
  // Gaussian rewards, by the likelihood ratio for a family with a KL.
  bool told_apart(std::size_t m, std::size_t k, std::size_t best, double confidence) {
    if (!kl_) return estimates(m).told_apart(k, best, confidence);
    return likelihood_ratio(m, k, best) > confidence;
  }

  // The generalized likelihood ratio (log) of "arm k's mixed mean at client
  // m is below `best`'s" against every alternative lambda in which it is
  // not: the least sum_n N_{k,n} KL(mu_hat_{k,n}, lambda_{k,n}) + sum_n
  // N_{b,n} KL(mu_hat_{b,n}, lambda_{b,n}) with lambda'_{k,m} =
  // lambda'_{b,m}, b = best, the test of Garivier and Kaufmann (2016,
  // "Optimal best arm identification with fixed confidence") for the mixed
  // means. It is the KL program's constraint (k, m) at pulls x = the
  // reported counts, solved by theory::solve_alternative. For Gaussian
  // rewards it is gap^2 / (2 (V_k + V_best)). 0 where best does not lead
  // or a count it weighs is 0; +inf where no alternative within the
  // family's range closes the lead. Uses client m's scratch only (update()
  // runs in m's task).
  double likelihood_ratio(std::size_t m, std::size_t k, std::size_t best) {
    const auto estimate = estimates(m);
    const double gap = estimate.means[best] - estimate.means[k];
    if (!(gap > 0.0)) return 0.0;
    if (std::isinf(estimate.variances[k]) || std::isinf(estimate.variances[best])) return 0.0;
    theory::KlConstraint& test = tests_[m];
    test.terms.clear();
    test.multiplier = 0.0;  // a cold start: the same value whatever came before
    test.gap = gap;
    const double other = (1.0 - alpha_) / static_cast<double>(clients_);
    double reachable = 0.0;
    for (const auto& [arm, direction] : {std::pair{k, 1.0}, std::pair{best, -1.0}}) {
      for (std::size_t n = 0; n < clients_; ++n) {
        const double weight = n == m ? alpha_ + other : other;
        if (!(weight > 0.0)) continue;
        const auto at = static_cast<std::uint32_t>(n * arms_ + arm);
        reachable += theory::add_term(*kl_, test, at, local_means_[at], weight, direction);
      }
    }
    if (!(reachable > gap)) return std::numeric_limits<double>::infinity();
    theory::solve_alternative(*kl_, reported_pulls_, test);
    return test.value;
  }

  // Whether the estimates have moved from those the last allocation was
  // solved for: a client's tied arms (so its best) changed, or a gap moved
  // by more than kReplanShare of itself.
  bool replan_needed(const std::vector<std::uint8_t>& tied, const std::vector<double>& gaps) const {
    if (tied != planned_tied_) return true;
    for (std::size_t i = 0; i < gaps.size(); ++i) {
      if (std::abs(gaps[i] - planned_gaps_[i]) > kReplanShare * planned_gaps_[i]) return true;
    }
    return false;
  }

  AllocParams params_;
  double alpha_;  // the algorithm's
  std::size_t clients_, arms_;
  std::uint64_t horizon_;
  // the family's KL where it is not the Gaussian one (kl_divergence)
  std::unique_ptr<const families::Divergence> kl_;
  double sigma_;
  bool kl_plan_;          // whether the KL program plans (else the Gaussian one, at sigma_)
  double variance_unit_;  // sigma^2 for Gaussian rewards, else 1 (reward_variance)
  double comm_cost_;                            // C, per participant and exchange
  std::vector<std::uint32_t> every_arm_;        // 0, 1, ..., K - 1: the runs' spans
  std::vector<std::uint64_t> counts_;           // per (client, arm), row-major: client state
  std::vector<double> sums_;                    // the same
  std::vector<std::uint64_t> reported_counts_;  // as last broadcast
  std::vector<double> reported_sums_;
  std::vector<double> reported_pulls_;       // reported_counts_ as reals, with a KL
  std::vector<theory::KlConstraint> tests_;  // likelihood_ratio()'s, per client
  std::vector<double> local_means_;  // as aggregate() reads the reports
  std::vector<ArmTotals> totals_;    // per arm, the same
  std::vector<std::uint64_t> explore_;  // this phase's exploration pulls, per (client, arm)
  std::vector<std::uint32_t> best_;     // per client: its best mixed estimate
  std::vector<std::optional<std::uint32_t>> fixed_;
  theory::AllocationSolver solver_;         // kept: a replication solves up to once a phase
  theory::OptimalAllocation allocation_;    // the last solve, and what it was solved for:
  std::vector<std::uint8_t> planned_tied_;  // per (client, arm), as plan_targets' tied
  std::vector<double> planned_gaps_;        // the estimated gaps
  std::vector<std::uint64_t> scratch_;      // plan()'s, per arm
  std::vector<double> sub_ends_, sub_logs_;  // this phase's sub-intervals (begin_phase())
  // per (client, arm): mixed_estimates(), and per client whether its row is
  // from the last broadcast
  std::vector<double> estimated_means_, estimated_variances_;
  std::vector<std::uint8_t> estimated_;
  std::vector<std::uint8_t> tied_;  // plan_targets()' per (client, arm), and
  std::vector<double> gaps_;        // per arm
  std::vector<double> wanted_;
  double length_ = 0.0;   // this phase's slots
  double start_ = 0.0;    // slots before this phase
  double elapsed_ = 0.0;  // slots up to this phase's end
  double growth_ = 1.0;   // the next phase ends at elapsed_^growth_ at the latest,
  double reach_ = 0.0;    // and at e^reach_ (unless doubling is later),
  double patience_ = 0.0;         // or elapsed_ + patience_ if later
  std::size_t participants_ = 0;  // in the phase last aggregated
  bool first_ = true;
};

class PfAlloc final : public sim::Algorithm {
 public:
  explicit PfAlloc(AllocParams params) : params_(params) {}
  std::string_view name() const override { return "pf-alloc"; }
  sim::Protocol protocol() const override { return sim::Protocol::phased; }
  // It plans with the family's KL divergence, and finds alternatives by
  // their multiplier, which needs a KL convex in the mean.
  std::string refuses(const families::RewardFamily& rewards) const override {
    const auto kl = rewards.divergence();
    if (!kl) {
      return fmt::format("it plans with the rewards' KL divergence, which {} rewards lack: {}",
                         rewards.family().display(), rewards.family().no_divergence());
    }
    if (!kl->convex()) {
      return fmt::format(
          "it plans with the rewards' KL divergence, which must be convex in the mean: the {} "
          "one is not (docs/pf-alloc.md)",
          rewards.family().display());
    }
    return {};
  }
  sim::ReplicationResult replicate(const sim::Cell& cell, std::uint64_t seed,
                                   std::uint64_t replication,
                                   const StopToken& stop) const override {
    AllocState state(cell, params_);
    return sim::run_phased(cell, state, seed, replication, stop);
  }
  std::string schedule() const override {
    return fmt::format("max(2 t + K n0, min(t^a, e^L), t + 2 C M / risk), n0 = {}",
                       params_.initial_pulls);
  }
  // A plan (and at most one solve of the allocation) per phase after the
  // first: the phases begun are at most the P with K n0 (2^P - 1) >= T
  // (doubling; phases that outgrow it, docs/pf-alloc.md "Communication",
  // make them 0.45 to 0.9 of that on the games measured there at T = 10^10,
  // about all of it at T = 10^5 to 10^7). Since issue 26's interior-point
  // solver a phase costs about the same per client and arm on every game,
  // the solve no longer standing out: kPhasePerClientArm is a least-squares
  // fit (of relative error) to the processor time of pf-alloc's
  // replications at T = 10^6, alpha = 0.5, at commit 6f97f12 on 2026-11-26,
  // on MovieLens 10x40, the study's 20x10 game and random 4x9, 50x5, 5x20,
  // 100x20, 20x40 and 2x100 games (tools/random_means.py, seed 1), made
  // with tests/integration/data/pf_alloc_costs.py (its data beside it):
  // within -30% (20x40, 7.3 ms) and +36% (50x5, 1.6 ms) of the times
  // measured, 2.2 ms on MovieLens; at T = 10^5 and 10^7 within -27% and
  // +56%. (At e8d01cb the solve was 10.6 K^2 + 3.4 M K us, 190 ms on
  // MovieLens; fitted to 6f97f12's times, its K^2 term comes out at 3 ns.)
  // The progress display learns the real cost as it runs.
  double planning_cost(const sim::Cell& cell) const override {
    const auto clients = static_cast<double>(cell.instance().clients());
    const auto arms = static_cast<double>(cell.instance().arms());
    const double first = arms * static_cast<double>(params_.initial_pulls);
    const double phases = std::ceil(std::log2(static_cast<double>(cell.horizon()) / first + 1.0));
    const double per_client_arm =
        plans_with_kl(cell.instance().rewards(), cell.instance().clients(), cell.instance().arms())
            ? kKlPhasePerClientArm
            : kPhasePerClientArm;
    return (phases - 1.0) * per_client_arm * clients * arms;
  }

 private:
  // A phase's plan and solve per client and arm, in nanoseconds (see
  // planning_cost).
  static constexpr double kPhasePerClientArm = 620.0;
  // The same with the KL program (a dense barrier method: a Bernoulli
  // replication of the synthetic game costs about 775 times a Gaussian
  // one): fitted on 2026-11-28 to Bernoulli replications of the synthetic
  // game at alpha 0.5, 74 ms at T = 10^6 and 104 ms at 10^10 (processor
  // time of -R 50 --threads 1), which it puts at 60 ms (-19%) and 126 ms
  // (+21%). Its solve grows faster than M K on larger games.
  static constexpr double kKlPhasePerClientArm = 140'000.0;

  AllocParams params_;
};

}  // namespace

namespace entries {
extern const AlgorithmEntry pf_alloc{
    "pf-alloc",
    &alloc_options,
    [](const io::CellValues& values, const sim::CellContext&) {
      return std::shared_ptr<const sim::Algorithm>(std::make_shared<PfAlloc>(
          AllocParams{values.real("algorithm.margin"), values.whole("algorithm.initial_pulls")}));
    },
    {}};
}  // namespace entries

}  // namespace pfmab::algorithms
