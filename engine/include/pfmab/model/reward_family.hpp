#pragma once

#include <string_view>

namespace pfmab::model {

enum class RewardKind { gaussian, bernoulli };

// The distribution of one local reward X_{k,m}(t) around its mean (Sec. 2:
// sigma-subgaussian; the paper uses N(mu, 1) and Bernoulli(mu)).
struct RewardFamily {
  RewardKind kind = RewardKind::gaussian;
  double sigma = 1.0;  // Gaussian only; 0 makes every reward equal its mean

  // Throws UserError for a negative or non-finite sigma.
  void validate() const;
};

std::string_view to_string(RewardKind kind);
RewardKind parse_reward_kind(std::string_view name);  // throws UserError

}  // namespace pfmab::model
