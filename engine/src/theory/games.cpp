#include "pfmab/theory/games.hpp"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "pfmab/theory/allocation.hpp"

namespace pfmab::theory {
namespace {

// What C* depends on, as one vector: the reward family (its place and its
// parameters' values), alpha, the shape and the local means. Equal keys are
// the same game.
std::vector<double> key_of(const model::Instance& instance, double alpha) {
  const auto& family = instance.rewards();
  std::vector<double> key{static_cast<double>(family.index())};
  key.insert(key.end(), family.values().begin(), family.values().end());
  key.insert(key.end(), {alpha, static_cast<double>(instance.clients()),
                         static_cast<double>(instance.arms())});
  const auto means = instance.local_means();
  key.insert(key.end(), means.begin(), means.end());
  return key;
}

}  // namespace

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
  const auto kl = family.divergence();
  if (!kl || std::isnan(kl->quadratic_sigma())) {
    game.note = fmt::format(
        "C* is solved for Gaussian rewards only: with {} ones the divergence to the closest "
        "alternative has no closed form (docs/allocation.md)",
        family.family().display());
  } else if (const auto distinct = distinct_best_arms(mixed);
             static_cast<double>(mixed.arms()) * static_cast<double>(distinct * distinct) >
             std::pow(static_cast<double>(kMaxDistinctBestArms), 3.0)) {
    game.note = fmt::format(
        "{} distinct best arms among {} arms; the solver's dense steps grow as K L^2, limit "
        "{}^3 (docs/limits.md)",
        distinct, mixed.arms(), kMaxDistinctBestArms);
  } else {
    game.c_star =
        optimal_allocation(mixed, kl->quadratic_sigma(), Coupling::coupled, kExactGap, stop)
            .constant;
    ++solves_;
  }
  games_.push_back(std::move(game));
  index_.emplace(std::move(key), games_.size() - 1);
  return games_.size() - 1;
}

}  // namespace pfmab::theory
