#include "pfmab/algorithms/pf_ucb.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "pfmab/model/mixed_model.hpp"
#include "pfmab/util/error.hpp"

namespace pfmab::algorithms {
namespace {

// ceil(x) as a slot count. Lengths beyond any horizon (T <= 2^62 slots) are
// capped, which cannot change a run: the horizon cuts such a phase anyway.
std::uint64_t ceil_to_slots(double x) {
  constexpr double cap = 0x1p62;
  return x >= cap ? static_cast<std::uint64_t>(cap) : static_cast<std::uint64_t>(std::ceil(x));
}

}  // namespace

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
  if (!(std::isfinite(constant) && constant > 0.0)) {
    throw UserError(fmt::format("confidence constant {} must be a finite number > 0", constant));
  }
}

std::uint64_t PfUcbRule::global_rounds(std::uint64_t phase) const {
  return ceil_to_slots((1.0 - alpha_) * schedule_.f(phase));
}

std::uint64_t PfUcbRule::local_rounds(std::uint64_t phase) const {
  return ceil_to_slots(clients_ * alpha_ * schedule_.f(phase));
}

double PfUcbRule::confidence_radius(std::uint64_t phase) const {
  return std::sqrt(params_.confidence_constant * log_term_ /
                   (clients_ * schedule_.cumulative(phase)));
}

PfUcbClient::PfUcbClient(std::size_t arms)
    : sums_(arms, 0.0), pulls_(arms, 0), mixed_estimates_(arms, 0.0), active_(arms) {
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

void PfUcbClient::record(std::uint32_t arm, std::uint64_t pulls, double reward_sum) {
  sums_[arm] += reward_sum;
  pulls_[arm] += pulls;
}

double PfUcbClient::sample_mean(std::uint32_t arm) const {
  return sums_[arm] / static_cast<double>(pulls_[arm]);
}

void PfUcbClient::update(std::span<const double> global_means, double alpha, double radius) {
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
  if (active_.size() == 1) {
    fixed_arm_ = active_.front();
    active_.clear();
  }
}

PfUcbServer::PfUcbServer(std::size_t arms) : active_(arms), global_means_(arms, 0.0) {
  std::iota(active_.begin(), active_.end(), 0u);
}

void PfUcbServer::aggregate(std::span<const PfUcbClient> clients) {
  for (const auto k : active_) {
    double sum = 0.0;
    for (const auto& client : clients) sum += client.sample_mean(k);
    global_means_[k] = sum / static_cast<double>(clients.size());
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

}  // namespace pfmab::algorithms
