#include "pfmab/theory/games.hpp"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "pfmab/theory/allocation.hpp"
#include "pfmab/theory/kl_allocation.hpp"
#include "pfmab/util/error.hpp"

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
  const auto kl = family.divergence();
  const bool gaussian = kl && !std::isnan(kl->quadratic_sigma());
  if (!kl) {
    game.note = fmt::format("{} rewards have no C*: {}", family.family().display(),
                            family.family().no_divergence());
  } else if (const auto distinct = distinct_best_arms(mixed);
             gaussian &&
             static_cast<double>(mixed.arms()) * static_cast<double>(distinct * distinct) >
                 std::pow(static_cast<double>(kMaxDistinctBestArms), 3.0)) {
    game.note = fmt::format(
        "{} distinct best arms among {} arms; the solver's dense steps grow as K L^2, limit "
        "{}^3 (docs/limits.md)",
        distinct, mixed.arms(), kMaxDistinctBestArms);
  } else if (const auto variables = mixed.clients() * (mixed.arms() - 1);
             !gaussian && variables > kMaxKlVariables) {
    game.note = fmt::format(
        "{} clients x {} other arms = {} pulls to plan; the KL program's solver takes dense steps "
        "over them, limit {} (docs/limits.md)",
        mixed.clients(), mixed.arms() - 1, variables, kMaxKlVariables);
  } else if (gaussian) {
    game.c_star = optimal_allocation(mixed, kl->quadratic_sigma(), Coupling::coupled, kExactGap,
                                     stop, nullptr, exact_ties(mixed))
                      .constant;
    ++solves_;
  } else {
    ++solves_;
    try {
      const auto solved = kl_optimal_allocation(mixed, *kl, kKlGap, stop, exact_ties(mixed));
      if (solved.gap <= kKlGap) {
        game.c_star = solved.constant;
      } else {
        game.note = fmt::format(
            "the KL program's solve stopped at a certified gap of {:.2g}: C* is in [{:.6g}, "
            "{:.6g}] (docs/allocation.md)",
            solved.gap, solved.constant * (1.0 - solved.gap), solved.constant);
      }
    } catch (const UserError& e) {
      game.note = e.what();
    }
  }
  games_.push_back(std::move(game));
  index_.emplace(std::move(key), games_.size() - 1);
  return games_.size() - 1;
}

}  // namespace pfmab::theory
