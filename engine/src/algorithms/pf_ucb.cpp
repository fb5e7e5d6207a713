#include "pfmab/algorithms/pf_ucb.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "pfmab/util/limits.hpp"
#include "pfmab/model/mixed_model.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"

namespace pfmab::algorithms {
namespace {

// ceil(weight f), f = f(p) times a length factor, as a slot count. A zero
// weight (alpha = 0 or 1) is no pulls, also where f overflowed to infinity.
// Lengths beyond any horizon (T <= 2^62 slots) are capped, which cannot
// change a run: the horizon cuts such a phase anyway. The ranges of
// docs/limits.md keep f finite or +infinity and > 0, never NaN.
std::uint64_t ceil_to_slots(double weight, double f) {
  if (weight == 0.0) return 0;
  constexpr double cap = 0x1p62;
  const double x = weight * f;
  return x < cap ? static_cast<std::uint64_t>(std::ceil(x)) : static_cast<std::uint64_t>(cap);
}

// 0, 1, ..., count - 1
std::vector<std::uint32_t> first_indices(std::size_t count) {
  std::vector<std::uint32_t> indices(count);
  std::iota(indices.begin(), indices.end(), 0u);
  return indices;
}

}  // namespace

std::string_view to_string(Preset preset) {
  return preset == Preset::paper ? "paper" : "authors-code";
}

Preset parse_preset(std::string_view name) {
  if (name == "paper") return Preset::paper;
  if (name == "authors-code") return Preset::authors_code;
  throw UserError(
      fmt::format("unknown preset '{}' (expected 'paper' or 'authors-code')", excerpt(name)));
}

std::string_view to_string(Lengths lengths) {
  return lengths == Lengths::paper ? "paper" : "large-m";
}

Lengths parse_lengths(std::string_view name) {
  if (name == "paper") return Lengths::paper;
  if (name == "large-m") return Lengths::large_m;
  throw UserError(fmt::format(
      "unknown exploration lengths '{}' (expected 'paper' or 'large-m', the Remark of Sec. 4)",
      excerpt(name)));
}

PfUcbRule::PfUcbRule(const PfUcbParams& params, double alpha, std::size_t clients,
                     std::uint64_t horizon)
    : params_(params),
      alpha_(alpha),
      clients_(static_cast<double>(clients)),
      log_term_(std::log(static_cast<double>(horizon) *
                         (params.log_term == LogTerm::clients_horizon ? clients_ : 1.0))),
      schedule_(params.schedule, horizon) {
  model::validate_alpha(alpha);
  validate_confidence_constant(params.confidence_constant);
}

void validate_confidence_constant(double constant) {
  limits::check(constant, "confidence constant c_B", limits::confidence_constant);
}

std::uint64_t PfUcbRule::global_rounds(std::uint64_t phase, double factor) const {
  const double weight = params_.lengths == Lengths::paper ? 1.0 - alpha_ : (1.0 - alpha_) / clients_;
  return ceil_to_slots(weight, schedule_.f(phase) * factor);
}

std::uint64_t PfUcbRule::local_rounds(std::uint64_t phase, double factor) const {
  const double weight = params_.lengths == Lengths::paper ? clients_ * alpha_ : alpha_;
  return ceil_to_slots(weight, schedule_.f(phase) * factor);
}

double PfUcbRule::confidence_radius(std::uint64_t phase) const {
  return confidence_radius_at(schedule_.cumulative(phase));
}

double PfUcbRule::confidence_radius_latest(double own, double mean_inverse) const {
  // The proof of Lemma 1 with per-client schedules (docs/algorithms.md): the
  // mixed estimate's variance proxy is at most 1/(M F'_m) (paper lengths) or
  // 1/F'_m (large-M), with 1/F'_m = alpha/F_m + (1 - alpha) H. A zero weight
  // drops its term, also when the term is infinite (0 * inf is NaN).
  auto weighted = [](double weight, double inverse) {
    return weight == 0.0 ? 0.0 : weight * inverse;
  };
  const double inverse = weighted(alpha_, 1.0 / own) + weighted(1.0 - alpha_, mean_inverse);
  return confidence_radius_at(1.0 / inverse);
}

double PfUcbRule::confidence_radius_at(double cumulative) const {
  // The mixed estimate's variance (unit-variance rewards) is alpha^2/n_l-total
  // + ((1 - alpha)/M)^2 M/n_g-total: 1/(M F(p)) with Algorithm 1's lengths,
  // hence B_p's M. The large-M lengths divide both runs by M, so the variance
  // is 1/F(p) and the radius must drop the M to keep its guarantee.
  const double samples = params_.lengths == Lengths::paper ? clients_ * cumulative : cumulative;
  return std::sqrt(params_.confidence_constant * log_term_ / samples);
}

PfUcbClient::PfUcbClient(std::size_t arms)
    : sums_(arms, 0.0),
      pulls_(arms, 0),
      mixed_estimates_(arms, 0.0),
      global_means_(arms, 0.0),
      active_(arms) {
  std::iota(active_.begin(), active_.end(), 0u);
}

std::uint32_t PfUcbClient::exploit_arm() const {
  if (fixed_arm_) return *fixed_arm_;
  std::uint32_t best = active_.front();
  for (const auto k : active_) {
    if (mixed_estimates_[k] > mixed_estimates_[best]) best = k;
  }
  return best;
}

double PfUcbClient::exploit_value(std::uint32_t arm, double alpha) const {
  return alpha * sample_mean(arm) + (1.0 - alpha) * global_means_[arm];
}

std::uint32_t PfUcbClient::exploit_arm_authors(double alpha) const {
  if (fixed_arm_) return *fixed_arm_;
  std::optional<std::uint32_t> best;
  double best_value = 0.0;
  for (std::uint32_t k = 0; k < pulls_.size(); ++k) {
    if (pulls_[k] == 0) continue;  // no estimate yet
    const double value = exploit_value(k, alpha);
    if (!best || value > best_value) {
      best = k;
      best_value = value;
    }
  }
  return best.value_or(0);
}

void PfUcbClient::record(std::uint32_t arm, std::uint64_t pulls, double reward_sum) {
  sums_[arm] += reward_sum;
  pulls_[arm] += pulls;
}

double PfUcbClient::sample_mean(std::uint32_t arm) const {
  return sums_[arm] / static_cast<double>(pulls_[arm]);
}

void PfUcbClient::update(std::span<const double> global_means, double alpha, double radius,
                         Preset preset) {
  global_means_.assign(global_means.begin(), global_means.end());
  updated_ = true;
  if (!eliminates_against_all_arms(preset)) {
    if (active_.empty()) return;
    std::uint32_t leader = active_.front();
    for (const auto k : active_) {
      mixed_estimates_[k] = alpha * sample_mean(k) + (1.0 - alpha) * global_means[k];
      if (mixed_estimates_[k] > mixed_estimates_[leader]) leader = k;
    }
    // Eqn. (8): drop k when max_l mu_bar'_l - mu_bar'_k >= 2 B_p. The leader has
    // gap 0 < 2 B_p; naming it keeps it also when B_p = 0 (L = log 1).
    const double best = mixed_estimates_[leader];
    std::erase_if(active_, [&](std::uint32_t k) {
      return k != leader && best - mixed_estimates_[k] >= 2.0 * radius;
    });
  } else {
    // The authors' client.py: every estimate is refreshed, and an arm of A_m
    // goes when mu_bar'_k + B < max over all arms of (mu_bar'_l - B).
    double best = -std::numeric_limits<double>::infinity();
    for (std::uint32_t k = 0; k < pulls_.size(); ++k) {
      if (pulls_[k] == 0) continue;
      mixed_estimates_[k] = alpha * sample_mean(k) + (1.0 - alpha) * global_means[k];
      best = std::max(best, mixed_estimates_[k] - radius);
    }
    std::erase_if(active_, [&](std::uint32_t k) { return mixed_estimates_[k] + radius < best; });
  }
  if (active_.size() == 1) {
    fixed_arm_ = active_.front();
    active_.clear();
  }
}

std::vector<double> PfUcbClient::gap_estimates(double radius) const {
  std::vector<double> gaps(pulls_.size(), 1.0);
  if (!updated_) return gaps;
  double best = -std::numeric_limits<double>::infinity();
  for (std::uint32_t k = 0; k < pulls_.size(); ++k) {
    if (pulls_[k] > 0) best = std::max(best, mixed_estimates_[k]);
  }
  for (std::uint32_t k = 0; k < pulls_.size(); ++k) {
    if (pulls_[k] > 0) gaps[k] = std::min(best - mixed_estimates_[k] + 2.0 * radius, 1.0);
  }
  return gaps;
}

PfUcbServer::PfUcbServer(std::size_t arms, std::size_t clients)
    : active_(arms),
      global_means_(arms, 0.0),
      reports_(clients, std::vector<std::optional<double>>(arms)),
      gaps_(clients, std::vector<double>(arms, 1.0)) {
  std::iota(active_.begin(), active_.end(), 0u);
  combine_gaps();
}

void PfUcbServer::aggregate(std::span<const PfUcbClient> clients,
                            std::span<const std::uint32_t> participants, Preset preset,
                            Aggregation aggregation) {
  // server.py averages every arm's local means; Algorithm 2 those of A(p)
  const auto arms =
      eliminates_against_all_arms(preset) ? first_indices(global_means_.size()) : active_;
  for (const auto m : participants) {
    for (const auto k : arms) {
      if (clients[m].pulls(k) > 0) reports_[m][k] = clients[m].sample_mean(k);
    }
  }
  // Both pools are in increasing client order, so that under full
  // participation they sum the same numbers in the same order.
  const auto pool = aggregation == Aggregation::latest
                        ? first_indices(clients.size())
                        : std::vector<std::uint32_t>(participants.begin(), participants.end());
  for (const auto k : arms) {
    double sum = 0.0;
    std::size_t count = 0;
    for (const auto n : pool) {
      if (!reports_[n][k]) continue;  // no report of arm k yet
      sum += *reports_[n][k];
      ++count;
    }
    if (count > 0) global_means_[k] = sum / static_cast<double>(count);
  }
}

void PfUcbServer::unite(std::span<const PfUcbClient> clients) {
  std::vector<bool> in_union(global_means_.size(), false);
  for (const auto& client : clients) {
    for (const auto k : client.active()) in_union[k] = true;
  }
  active_.clear();
  for (std::uint32_t k = 0; k < in_union.size(); ++k) {
    if (in_union[k]) active_.push_back(k);
  }
}

void PfUcbServer::receive_gaps(std::size_t client, std::vector<double> gaps) {
  gaps_[client] = std::move(gaps);
}

void PfUcbServer::combine_gaps() {
  const std::size_t arms = global_means_.size();
  roots_.assign(arms, 0.0);
  alike_.assign(arms, true);
  for (const auto& gaps : gaps_) {  // in client order: the sums' bits do not depend on M's split
    for (std::size_t k = 0; k < arms; ++k) {
      roots_[k] += std::sqrt(gaps[k]);
      alike_[k] = alike_[k] && gaps[k] == gaps_.front()[k];
    }
  }
}

double PfUcbServer::length_factor(std::size_t client, std::uint32_t arm, double alpha) const {
  // every client's estimate equal to client 0's is every one equal to own
  if (alike_[arm]) return 1.0;  // what the formula gives in exact arithmetic
  const double own = gaps_[client][arm];
  const double m = static_cast<double>(gaps_.size());
  return (alpha * std::sqrt(own) + (1.0 - alpha) / m * roots_[arm]) / std::sqrt(own);
}

}  // namespace pfmab::algorithms
