#pragma once

#include <cassert>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <pcg_random.hpp>

#include "pfmab/model/reward_family.hpp"
#include "pfmab/rng/samplers.hpp"

namespace pfmab::rng {

// The rewards of one arm at one client, one class per reward family, so that
// every algorithm and both fidelity modes draw a reward, a sum of rewards or
// a waiting stretch by the same code (the outputs' bits depend on it: the
// draws from the stream and the arithmetic on them are part of the
// determinism contract). Generic code takes the family as a template
// parameter (with_rewards below) and builds a sampler per arm as
// Rewards(mu, family); the loops that draw are then compiled once per
// family, with no branch per draw.
//
// Each family offers:
//   draw(stream)          one reward
//   sum_of(n, stream)     the sum of n rewards, in one draw from its exact law
//   Tally                 a sum of rewards drawn one at a time, as the per-pull
//                         mode draws them (other arms' draws between them)
//   until_below_zero(...) what the authors'-code waiting needs (sim/waiting.hpp)

// Throws std::invalid_argument(what); out of line, so that a sampler's
// check stays small enough to inline.
[[noreturn]] void refuse_rewards(const char* what);

// A stretch of pulls of one arm and the sum of their rewards.
struct Stretch {
  std::uint64_t pulls = 0;
  double sum = 0.0;
};

// N(mu, sigma^2) rewards.
class GaussianRewards {
 public:
  // mu finite, sigma finite and >= 0: asserted, not checked, since
  // model::Instance and RewardFamily::validate have refused the rest as
  // UserErrors, and a check here would cost a tenth of an aggregated draw.
  GaussianRewards(double mu, double sigma) : mu_(mu), sigma_(sigma) {
    assert(std::isfinite(mu) && sigma >= 0.0 && std::isfinite(sigma));
  }
  GaussianRewards(double mu, const model::RewardFamily& family)
      : GaussianRewards(mu, family.sigma) {}

  // mu + sigma Z, one Z by the ziggurat.
  double draw(pcg32& stream) const { return mu_ + sigma_ * UnitNormal()(stream); }

  // N(n mu, n sigma^2) by one Z. sum_of(1, s) is draw(s), to the bit.
  double sum_of(std::uint64_t n, pcg32& stream) const {
    const auto x = static_cast<double>(n);
    return x * mu_ + sigma_ * std::sqrt(x) * UnitNormal()(stream);
  }

  // A sum of rewards drawn one at a time (below).
  class Tally;

  // Pulls of this arm on the walk Y_n = y + sum_{i <= n} (X_i - theta) (y < 0
  // taken as 0), up to `slots` of them: exactly up to the first n at which
  // Y_n < 0, or all `slots` if there is none (first_passage_below_zero).
  Stretch until_below_zero(pcg32& stream, double y, double theta, std::uint64_t slots) const;

 private:
  double mu_;
  double sigma_;
};

// X = mu + sigma Z: the Z are summed and scaled once, which keeps the
// per-pull loop to one draw and one add.
class GaussianRewards::Tally {
 public:
  explicit Tally(const GaussianRewards& rewards) : rewards_(rewards) {}
  void add(pcg32& stream) { noise_ += UnitNormal()(stream); }
  // The sum of the rewards added; n is how many (the caller counts them, so
  // that add() stays one add).
  double sum(std::uint64_t n) const {
    return static_cast<double>(n) * rewards_.mu_ + rewards_.sigma_ * noise_;
  }

 private:
  GaussianRewards rewards_;
  double noise_ = 0.0;
};

// Bernoulli(mu) rewards.
class BernoulliRewards {
 public:
  // Throws std::invalid_argument for mu outside [0, 1] (model::Instance
  // refuses those first, as UserErrors).
  explicit BernoulliRewards(double mu) : mu_(checked(mu)), threshold_(bernoulli_threshold(mu)) {}
  BernoulliRewards(double mu, const model::RewardFamily& /*family*/) : BernoulliRewards(mu) {}

  // One 32-bit draw against round(mu 2^32) (bernoulli_threshold).
  double draw(pcg32& stream) const { return std::uint64_t{stream()} < threshold_ ? 1.0 : 0.0; }

  // Binomial(n, mu), with mu itself rather than the threshold. Agrees with
  // draw() in law at n = 1, not in bits: it takes two 32-bit draws. n below
  // 2^63.
  double sum_of(std::uint64_t n, pcg32& stream) const {
    return static_cast<double>(binomial(stream, static_cast<std::int64_t>(n), mu_));
  }

  // A sum of rewards drawn one at a time (below).
  class Tally;

  // Pulls of this arm on the walk Y_n = y + sum_{i <= n} (X_i - theta), up to
  // `slots` of them, never past the first n at which Y_n < 0: as many pulls
  // as no run of failures could take below 0 (every failure lowers Y by
  // theta), one pull kept in hand against rounding, in one Binomial draw;
  // a single pull when none is that safe. The caller decides again after
  // each stretch.
  Stretch until_below_zero(pcg32& stream, double y, double theta, std::uint64_t slots) const;

 private:
  // mu, once known to be in [0, 1] (before the threshold is taken of it)
  static double checked(double mu) {
    if (!(mu >= 0.0 && mu <= 1.0)) refuse_rewards("BernoulliRewards: mu must be in [0, 1]");
    return mu;
  }

  double mu_;
  std::uint64_t threshold_;
};

// The successes counted, each as draw() decides it.
class BernoulliRewards::Tally {
 public:
  explicit Tally(const BernoulliRewards& rewards) : threshold_(rewards.threshold_) {}
  void add(pcg32& stream) { successes_ += std::uint64_t{stream()} < threshold_; }
  double sum(std::uint64_t /*n*/) const { return static_cast<double>(successes_); }

 private:
  std::uint64_t threshold_;
  std::uint64_t successes_ = 0;
};

// Calls play(std::type_identity<GaussianRewards>{}) or play(std::type_identity<
// BernoulliRewards>{}) as the family says: the one branch on the family, per
// call rather than per draw.
template <class Play>
decltype(auto) with_rewards(const model::RewardFamily& family, Play&& play) {
  if (family.kind == model::RewardKind::gaussian) {
    return play(std::type_identity<GaussianRewards>{});
  }
  return play(std::type_identity<BernoulliRewards>{});
}

// The first pull n in [1, length] at which a Gaussian random walk from
// `start` >= 0 with steps N(drift, sigma^2) is below 0, and its value then;
// or {0, value at `length`} if it stays at or above 0. Exact in law (the
// walk is a Brownian motion seen at whole times). A start below 0 is taken
// as 0.
struct FirstPassage {
  std::uint64_t step = 0;  // 0: none within the length
  double value = 0.0;      // of the walk at `step`, or at `length`
};
FirstPassage first_passage_below_zero(pcg32& stream, double start, double drift, double sigma,
                                      std::uint64_t length);

}  // namespace pfmab::rng
