#pragma once

#include <array>
#include <cassert>
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

// Exponential rewards of mean mu in (0, 1e9]: waiting times, sizes.
struct Exponential {
  static constexpr std::string_view name = "exponential";
  static constexpr std::string_view display = "exponential";
  static constexpr std::array<FamilyParameter, 0> parameters{};
  // The bound of every mean (util/limits.hpp): a sum of 2^62 rewards stays
  // below 1e30. A mean of 0 would be a point mass, not an exponential law.
  static constexpr limits::RealRange means{
      0.0, limits::mean.high, true,
      "an exponential mean is positive; beyond 1e9 it overflows sums of 2^62 rewards: rescale "
      "them"};
  static constexpr bool exact_sums = true;

  // Not sub-Gaussian (its tail is exp(-x / mu)): algorithms whose bonus or
  // planning assumes it refuse the family.
  static double subgaussian_sigma(const RewardFamily& /*family*/) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  static double ucb_scale(const RewardFamily& /*family*/) {
    return std::numeric_limits<double>::quiet_NaN();
  }

  // mu / lambda - 1 - log(mu / lambda); +inf at lambda = 0. Its variance at
  // mean lambda is lambda^2.
  class Kl final : public Divergence {
   public:
    double operator()(double mu, double lambda) const override {
      if (lambda == 0.0) return std::numeric_limits<double>::infinity();
      const double ratio = mu / lambda;
      return ratio - 1.0 - std::log(ratio);
    }
    double slope(double mu, double lambda) const override {
      return (lambda - mu) / (lambda * lambda);
    }
    double curvature(double mu, double lambda) const override {
      return (2.0 * mu - lambda) / (lambda * lambda * lambda);
    }
    double low_mean() const override { return 0.0; }
    double high_mean() const override { return std::numeric_limits<double>::infinity(); }
    bool convex() const override { return false; }  // its curvature is negative past 2 mu
    // (2 mu - lambda) / lambda^3 changes sign once, at lambda = 2 mu: a move
    // up is convex as far as mu, concave beyond; a move down always convex.
    double convex_move(double mu, double direction) const override {
      return direction > 0.0 ? mu : std::numeric_limits<double>::infinity();
    }
  };
  static std::unique_ptr<const Divergence> divergence(const RewardFamily& /*family*/) {
    return std::make_unique<Kl>();
  }
  static constexpr std::string_view no_divergence = "";

  // Thompson sampling's posterior of the mean after n rewards of sum S: from
  // Jeffreys' prior on the rate theta = 1 / mu (1 / theta), the rate's
  // posterior is Gamma(n, rate S), so the mean is S / Gamma(n, 1) (Korda,
  // Kaufmann and Munos 2013: Thompson sampling with Jeffreys' prior is
  // asymptotically optimal for one-parameter exponential families). One
  // gamma draw.
  class Posterior {
   public:
    // A draw's processor time, for the progress display's first estimate
    // (bench/README.md, "Thompson sampling baselines": one gamma).
    static constexpr double draw_ns = 8.9;
    explicit Posterior(const RewardFamily& /*family*/) {}
    double draw(std::uint64_t n, double sum, pcg32& stream) const {
      return sum / rng::gamma(stream, static_cast<double>(n));
    }
  };
  static constexpr std::string_view no_posterior = "";

  class Sampler {
   public:
    // mu in (0, 1e9]: asserted, not checked, as Gaussian's (the instance
    // refused the rest as UserErrors).
    explicit Sampler(double mu) : mu_(mu) { assert(mu > 0.0 && mu <= means.high); }
    Sampler(double mu, const RewardFamily& /*family*/) : Sampler(mu) {}

    // mu E, one E ~ Exp(1) by the ziggurat.
    double draw(pcg32& stream) const { return mu_ * rng::UnitExponential()(stream); }

    // Gamma(n, mu) in one draw (rng::gamma: exact up to floating point for
    // every n up to 2^62).
    double sum_of(std::uint64_t n, pcg32& stream) const {
      if (n == 0) return 0.0;
      return mu_ * rng::gamma(stream, static_cast<double>(n));
    }

    // X = mu E: the E are summed and scaled once, as Gaussian's Tally does.
    class Tally {
     public:
      explicit Tally(const Sampler& rewards) : mu_(rewards.mu_) {}
      void add(pcg32& stream) { units_ += rng::UnitExponential()(stream); }
      double sum(std::uint64_t /*n*/) const { return mu_ * units_; }

     private:
      double mu_;
      double units_ = 0.0;
    };

    // Rewards are positive: nonnegative.hpp's stretches.
    Stretch until_below_zero(pcg32& stream, double y, double theta, std::uint64_t slots) const {
      return nonnegative_until_below_zero(*this, stream, y, theta, slots);
    }

   private:
    double mu_;
  };
};

}  // namespace pfmab::families
