#include "pfmab/model/reward_family.hpp"

#include <fmt/format.h>

#include "pfmab/util/limits.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"

namespace pfmab::model {

void RewardFamily::validate() const {
  if (kind == RewardKind::gaussian) limits::check(sigma, "Gaussian reward sigma", limits::sigma);
}

std::string_view to_string(RewardKind kind) {
  return kind == RewardKind::gaussian ? "gaussian" : "bernoulli";
}

RewardKind parse_reward_kind(std::string_view name) {
  if (name == "gaussian") return RewardKind::gaussian;
  if (name == "bernoulli") return RewardKind::bernoulli;
  throw UserError(fmt::format("unknown reward family '{}' (expected 'gaussian' or 'bernoulli')",
                              excerpt(name)));
}

}  // namespace pfmab::model
