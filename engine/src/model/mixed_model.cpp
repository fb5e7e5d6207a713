#include "pfmab/model/mixed_model.hpp"

#include <fmt/format.h>

#include "pfmab/model/limits.hpp"

namespace pfmab::model {

void validate_alpha(double alpha) { limits::check(alpha, "alpha", limits::alpha); }

MixedModel::MixedModel(const Instance& instance, double alpha)
    : alpha_(alpha), clients_(instance.clients()), arms_(instance.arms()) {
  validate_alpha(alpha);
  mixed_.resize(clients_ * arms_);
  gap_.resize(clients_ * arms_);
  optimal_arm_.resize(clients_);
  for (std::size_t m = 0; m < clients_; ++m) {
    std::size_t best = 0;
    for (std::size_t k = 0; k < arms_; ++k) {
      mixed_[m * arms_ + k] =
          alpha * instance.local_mean(m, k) + (1.0 - alpha) * instance.global_mean(k);
      if (mixed_[m * arms_ + k] > mixed_[m * arms_ + best]) best = k;
    }
    optimal_arm_[m] = best;
    for (std::size_t k = 0; k < arms_; ++k) {
      gap_[m * arms_ + k] = mixed_[m * arms_ + best] - mixed_[m * arms_ + k];
    }
  }
}

}  // namespace pfmab::model
