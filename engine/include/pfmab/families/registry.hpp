#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <pcg_random.hpp>

#include "pfmab/families/bernoulli.hpp"
#include "pfmab/families/exponential.hpp"
#include "pfmab/families/family.hpp"
#include "pfmab/families/gaussian.hpp"
#include "pfmab/families/poisson.hpp"
#include "pfmab/families/student_t.hpp"

namespace pfmab::families {

// The registered families, in the order --rewards lists them. Adding a
// family is its file and a line here (docs/families.md). A family's place
// is part of no result (cells record its name), but Gaussian stays first:
// it is the default.
using Registered = std::tuple<Gaussian, Bernoulli, Poisson, Exponential, StudentT>;

inline constexpr std::size_t kFamilies = std::tuple_size_v<Registered>;

// Calls play(std::type_identity<F::Sampler>{}) for `family`'s registered
// type F: the one branch on the family, per call rather than per draw, so
// that generic code building a sampler per arm as Sampler(mu, family) and
// drawing from it is compiled once per family.
template <std::size_t I = 0, class Play>
decltype(auto) with_sampler(const RewardFamily& family, Play&& play) {
  using Sampler = typename std::tuple_element_t<I, Registered>::Sampler;
  if constexpr (I + 1 == kFamilies) {
    return play(std::type_identity<Sampler>{});
  } else {
    if (family.index() == I) return play(std::type_identity<Sampler>{});
    return with_sampler<I + 1>(family, std::forward<Play>(play));
  }
}

// A sampler that draws a sum of n rewards from its exact law in one draw,
// and the authors'-code waiting's stretches from such sums: what the
// aggregated mode draws with. A family declares exact_sums exactly when its
// Sampler has them (checked where it is registered, registry.cpp).
template <class Sampler>
concept SumsExactly = requires(const Sampler& rewards, pcg32& stream, std::uint64_t n, double y) {
  { rewards.sum_of(n, stream) } -> std::same_as<double>;
  { rewards.until_below_zero(stream, y, y, n) } -> std::same_as<Stretch>;
};

// with_sampler for the aggregated mode's draws: `play` is compiled for the
// samplers with exact sums only, so that no code path can draw a sum of
// rewards that have no exact one. A cell refuses the aggregated mode for
// such a family (sim::Cell); reaching one here is a bug: std::logic_error.
// `play` returns nothing.
template <class Play>
void with_exact_sums(const RewardFamily& family, Play&& play) {
  with_sampler(family, [&]<class Sampler>(std::type_identity<Sampler> type) {
    if constexpr (SumsExactly<Sampler>) {
      play(type);
    } else {
      throw std::logic_error(std::string(family.family().display()) +
                             " rewards have no exact sums to draw aggregated");
    }
  });
}

// A family whose mean has a posterior Thompson sampling can draw from:
// Posterior(family) made once per client, then draw(n, S, stream), a mean
// drawn from the posterior after n >= 1 rewards of sum S (never at n = 0,
// where the priors may be improper). A family declares `no_posterior`
// empty exactly when it has one (checked where it is registered,
// registry.cpp).
template <class F>
concept HasPosterior = std::constructible_from<typename F::Posterior, const RewardFamily&> &&
    requires(const typename F::Posterior& posterior, pcg32& stream, std::uint64_t n, double sum) {
  { posterior.draw(n, sum, stream) } -> std::same_as<double>;
};

// Calls play(std::type_identity<F::Posterior>{}) for `family`'s registered
// type F, compiled for the families with a posterior only, as
// with_exact_sums is for exact sums: the one branch on the family, so that
// Thompson sampling's draws inline. An algorithm that draws through it
// refuses a family without one (sim::Algorithm::refuses); reaching one
// here is a bug: std::logic_error. `play` returns nothing.
template <std::size_t I = 0, class Play>
void with_posterior(const RewardFamily& family, Play&& play) {
  if constexpr (I == kFamilies) {
    throw std::logic_error(std::string(family.family().display()) +
                           " rewards have no posterior to draw means from");
  } else {
    using F = std::tuple_element_t<I, Registered>;
    if constexpr (HasPosterior<F>) {
      if (family.index() == I) return play(std::type_identity<typename F::Posterior>{});
    }
    with_posterior<I + 1>(family, std::forward<Play>(play));
  }
}

}  // namespace pfmab::families
