#include "pfmab/theory/games.hpp"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "pfmab/theory/allocation.hpp"

namespace pfmab::theory {
namespace {

// What C* depends on, as one vector: the reward family (kind, sigma), alpha,
// the shape and the local means. Equal keys are the same game.
std::vector<double> key_of(const model::Instance& instance, double alpha) {
  const auto& family = instance.rewards();
  std::vector<double> key{static_cast<double>(family.kind), family.sigma, alpha,
                          static_cast<double>(instance.clients()),
                          static_cast<double>(instance.arms())};
  const auto means = instance.local_means();
  key.insert(key.end(), means.begin(), means.end());
  return key;
}

}  // namespace

std::vector<std::uint8_t> exact_ties(const model::MixedModel& mixed) {
  const std::size_t arms = mixed.arms();
  std::vector<std::uint8_t> tied(mixed.clients() * arms, 0);
  for (std::size_t m = 0; m < mixed.clients(); ++m) {
    for (std::size_t k = 0; k < arms; ++k) {
      if (k != mixed.optimal_arm(m) && mixed.gap(m, k) == 0.0) tied[m * arms + k] = 1;
    }
  }
  return tied;
}

std::size_t distinct_best_arms(const model::MixedModel& mixed) {
  std::vector<bool> best(mixed.arms(), false);
  std::size_t distinct = 0;
  for (std::size_t m = 0; m < mixed.clients(); ++m) {
    if (!best[mixed.optimal_arm(m)]) {
      best[mixed.optimal_arm(m)] = true;
      ++distinct;
    }
  }
  return distinct;
}

std::size_t Games::add(const model::Instance& instance, const model::MixedModel& mixed,
                       const StopToken& stop) {
  auto key = key_of(instance, mixed.alpha());
  if (const auto at = index_.find(key); at != index_.end()) return at->second;
  GameConstant game;
  const auto& family = instance.rewards();
  if (family.kind != model::RewardKind::gaussian) {
    game.note =
        "C* is solved for Gaussian rewards only: with Bernoulli ones the divergence to the "
        "closest alternative has no closed form (docs/allocation.md)";
  } else if (const auto distinct = distinct_best_arms(mixed);
             static_cast<double>(mixed.arms()) * static_cast<double>(distinct * distinct) >
             std::pow(static_cast<double>(kMaxDistinctBestArms), 3.0)) {
    game.note = fmt::format(
        "{} distinct best arms among {} arms; the solver's dense steps grow as K L^2, limit "
        "{}^3 (docs/limits.md)",
        distinct, mixed.arms(), kMaxDistinctBestArms);
  } else {
    game.c_star = optimal_allocation(mixed, family.sigma, Coupling::coupled, kExactGap, stop,
                                     nullptr, exact_ties(mixed))
                      .constant;
    ++solves_;
  }
  games_.push_back(std::move(game));
  index_.emplace(std::move(key), games_.size() - 1);
  return games_.size() - 1;
}

}  // namespace pfmab::theory
