#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "pfmab/model/instance.hpp"

namespace pfmab::model {

// The mixed model of Eqn. (3) for one personalisation weight alpha:
// mu'_{k,m} = alpha mu_{k,m} + (1 - alpha) mu_k, each client's mixed-optimal
// arm k'_{*,m} (lowest index on ties) and gaps Delta'_{k,m}.
class MixedModel {
 public:
  // Throws UserError unless 0 <= alpha <= 1.
  MixedModel(const Instance& instance, double alpha);
  // The mixed model of any local means, row-major client by arm, such as an
  // algorithm's estimates of them: no range applies to those (an estimate
  // may pass the instance's limits by its noise). Any finite means.
  MixedModel(std::span<const double> local_means, std::size_t clients, double alpha);

  double alpha() const { return alpha_; }
  std::size_t clients() const { return clients_; }
  std::size_t arms() const { return arms_; }

  double mixed_mean(std::size_t client, std::size_t arm) const {
    return mixed_[client * arms_ + arm];
  }
  double gap(std::size_t client, std::size_t arm) const { return gap_[client * arms_ + arm]; }
  // mu_{k,m}, the local mean the mixed ones are made of: the tight bound with
  // a family's KL (theory::kl_optimal_allocation) moves local means.
  double local_mean(std::size_t client, std::size_t arm) const {
    return local_[client * arms_ + arm];
  }
  std::size_t optimal_arm(std::size_t client) const { return optimal_arm_[client]; }
  // mu'_{*,m}: what the oracle earns per slot at client m.
  double optimal_mixed_mean(std::size_t client) const {
    return mixed_mean(client, optimal_arm(client));
  }

 private:
  double alpha_;
  std::size_t clients_;
  std::size_t arms_;
  std::vector<double> local_;  // row-major, client by arm
  std::vector<double> mixed_;
  std::vector<double> gap_;
  std::vector<std::size_t> optimal_arm_;
};

// Throws UserError unless 0 <= alpha <= 1 (NaN included).
void validate_alpha(double alpha);

}  // namespace pfmab::model
