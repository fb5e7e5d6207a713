#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string_view>

#include <pcg_random.hpp>

#include "pfmab/families/family.hpp"
#include "pfmab/families/nonnegative.hpp"
#include "pfmab/rng/samplers.hpp"

namespace pfmab::families {

// Poisson(mu) rewards, mu in [0, 1e9]: counts (arrivals, clicks) per pull.
struct Poisson {
  static constexpr std::string_view name = "poisson";
  static constexpr std::string_view display = "Poisson";
  static constexpr std::array<FamilyParameter, 0> parameters{};
  // The bound of every mean (util/limits.hpp): a sum of 2^62 rewards stays
  // below 1e30 (and a count is exact in a double below 2^53 only: the sums
  // beyond are counts rounded, as every sum of rewards is).
  static constexpr limits::RealRange means{
      0.0, limits::mean.high, false,
      "a Poisson mean is a rate, at least 0; beyond 1e9 it overflows sums of 2^62 rewards"};
  static constexpr bool exact_sums = true;

  // Not sub-Gaussian (its tail is exp(-x log x), a sub-exponential one):
  // algorithms whose bonus or planning assumes it refuse the family.
  static double subgaussian_sigma(const RewardFamily& /*family*/) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  static double ucb_scale(const RewardFamily& /*family*/) {
    return std::numeric_limits<double>::quiet_NaN();
  }

  // lambda - mu + mu log(mu / lambda), with 0 log 0 = 0: lambda at mu = 0,
  // +inf at lambda = 0 < mu. Its variance at mean lambda is lambda.
  class Kl final : public Divergence {
   public:
    double operator()(double mu, double lambda) const override {
      if (mu == 0.0) return lambda;
      if (lambda == 0.0) return std::numeric_limits<double>::infinity();
      return lambda - mu + mu * std::log(mu / lambda);
    }
    double slope(double mu, double lambda) const override { return (lambda - mu) / lambda; }
    double curvature(double mu, double lambda) const override { return mu / (lambda * lambda); }
    double low_mean() const override { return 0.0; }
    double high_mean() const override { return std::numeric_limits<double>::infinity(); }
    // KL(0, lambda) = lambda is linear, concave as well as convex: the C*
    // program takes the move up from a mean of 0 as a concave stretch of its
    // own (a branch), not as a kink of the convex problem, whose certificate
    // stalls there (docs/allocation.md, "Concave stretches").
    double convex_move(double mu, double direction) const override {
      return mu == 0.0 && direction > 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
    }
  };
  static std::unique_ptr<const Divergence> divergence(const RewardFamily& /*family*/) {
    return std::make_unique<Kl>();
  }
  static constexpr std::string_view no_divergence = "";

  // Thompson sampling's posterior of the mean after n counts of sum S: from
  // Jeffreys' prior mu^-1/2, Gamma(S + 1/2, rate n) (Korda, Kaufmann and
  // Munos 2013: Thompson sampling with Jeffreys' prior is asymptotically
  // optimal for one-parameter exponential families). One gamma draw, of
  // shape 1/2 while S = 0 (rng::gamma's reduction below shape 1).
  class Posterior {
   public:
    // A draw's processor time, for the progress display's first estimate
    // (bench/README.md, "Thompson sampling baselines": one gamma).
    static constexpr double draw_ns = 8.9;
    explicit Posterior(const RewardFamily& /*family*/) {}
    double draw(std::uint64_t n, double sum, pcg32& stream) const {
      return rng::gamma(stream, sum + 0.5) / static_cast<double>(n);
    }
  };
  static constexpr std::string_view no_posterior = "";

  class Sampler {
   public:
    // Throws std::invalid_argument for mu outside [0, 1e9] (the instance
    // refuses those first, as UserErrors).
    explicit Sampler(double mu) : mu_(checked(mu)), one_(mu) {}
    Sampler(double mu, const RewardFamily& /*family*/) : Sampler(mu) {}

    double draw(pcg32& stream) const { return one_(stream); }

    // Poisson(n mu) in one draw (rng::Poisson: Boost's samplers up to n mu =
    // 2^18, a normal quantile to order 1 / (n mu) above, within 8e-11 in
    // CDF). n mu is rounded to a double, a relative 2^-53.
    double sum_of(std::uint64_t n, pcg32& stream) const {
      return rng::Poisson(static_cast<double>(n) * mu_)(stream);
    }

    // The counts added, each as draw() draws it; exact below 2^53.
    class Tally {
     public:
      explicit Tally(const Sampler& rewards) : one_(rewards.one_) {}
      void add(pcg32& stream) { sum_ += one_(stream); }
      double sum(std::uint64_t /*n*/) const { return sum_; }

     private:
      rng::Poisson one_;
      double sum_ = 0.0;
    };

    // Counts are never negative: nonnegative.hpp's stretches.
    Stretch until_below_zero(pcg32& stream, double y, double theta, std::uint64_t slots) const {
      return nonnegative_until_below_zero(*this, stream, y, theta, slots);
    }

   private:
    static double checked(double mu) {
      if (!(mu >= means.low && mu <= means.high)) {
        refuse_rewards("Poisson rewards: mu must be in [0, 1e9]");
      }
      return mu;
    }

    double mu_;
    rng::Poisson one_;
  };
};

}  // namespace pfmab::families
