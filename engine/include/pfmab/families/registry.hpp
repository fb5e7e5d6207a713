#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "pfmab/families/bernoulli.hpp"
#include "pfmab/families/family.hpp"
#include "pfmab/families/gaussian.hpp"

namespace pfmab::families {

// The registered families, in the order --rewards lists them. Adding a
// family is its file and a line here (docs/families.md). A family's place
// is part of no result (cells record its name), but Gaussian stays first:
// it is the default.
using Registered = std::tuple<Gaussian, Bernoulli>;

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

}  // namespace pfmab::families
