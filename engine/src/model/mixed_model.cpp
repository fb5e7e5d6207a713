#include "pfmab/model/mixed_model.hpp"

#include <fmt/format.h>

#include "pfmab/util/limits.hpp"

namespace pfmab::model {

void validate_alpha(double alpha) { limits::check(alpha, "alpha", limits::alpha); }

MixedModel::MixedModel(const Instance& instance, double alpha)
    : MixedModel(instance.local_means(), instance.clients(), alpha) {}

MixedModel::MixedModel(std::span<const double> local_means, std::size_t clients, double alpha)
    : alpha_(alpha),
      clients_(clients),
      arms_(clients == 0 ? 0 : local_means.size() / clients),
      local_(local_means.begin(), local_means.begin() + clients_ * arms_) {
  validate_alpha(alpha);
  // mu_k = (1/M) sum_m mu_{k,m}, summed in client order as Instance does
  std::vector<double> global(arms_, 0.0);
  for (std::size_t k = 0; k < arms_; ++k) {
    double sum = 0.0;
    for (std::size_t m = 0; m < clients_; ++m) sum += local_means[m * arms_ + k];
    global[k] = sum / static_cast<double>(clients_);
  }
  mixed_.resize(clients_ * arms_);
  gap_.resize(clients_ * arms_);
  optimal_arm_.resize(clients_);
  for (std::size_t m = 0; m < clients_; ++m) {
    std::size_t best = 0;
    for (std::size_t k = 0; k < arms_; ++k) {
      mixed_[m * arms_ + k] = alpha * local_means[m * arms_ + k] + (1.0 - alpha) * global[k];
      if (mixed_[m * arms_ + k] > mixed_[m * arms_ + best]) best = k;
    }
    optimal_arm_[m] = best;
    for (std::size_t k = 0; k < arms_; ++k) {
      gap_[m * arms_ + k] = mixed_[m * arms_ + best] - mixed_[m * arms_ + k];
    }
  }
}

}  // namespace pfmab::model
