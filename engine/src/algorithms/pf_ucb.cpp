#include "pfmab/algorithms/pf_ucb.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"

namespace pfmab::algorithms {
namespace {

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

PfUcbRule::PfUcbRule(const PfUcbParams& params, double alpha, std::size_t clients,
                     std::uint64_t horizon)
    : theory::PhaseRule(params.rule, alpha, clients, horizon), params_(params) {}

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
                            sim::Aggregation aggregation) {
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
  const auto pool = aggregation == sim::Aggregation::latest
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
