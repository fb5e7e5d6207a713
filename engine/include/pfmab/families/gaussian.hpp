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
#include "pfmab/rng/first_passage.hpp"
#include "pfmab/rng/samplers.hpp"

namespace pfmab::families {

// N(mu, sigma^2) rewards: the paper's family (sigma = 1), any real mean.
struct Gaussian {
  static constexpr std::string_view name = "gaussian";
  static constexpr std::string_view display = "Gaussian";
  static constexpr std::array<FamilyParameter, 1> parameters{{
      {"sigma", 1.0, limits::sigma, "Gaussian reward standard deviation (0: noiseless)"},
  }};
  static constexpr limits::RealRange means = limits::mean;
  static constexpr bool exact_sums = true;

  static double sigma(const RewardFamily& family) { return family.values()[0]; }
  static double subgaussian_sigma(const RewardFamily& family) { return sigma(family); }
  static double ucb_scale(const RewardFamily& family) { return sigma(family); }

  // (lambda - mu)^2 / (2 sigma^2); +inf apart at sigma = 0, where one reward
  // tells the mean.
  class Kl final : public Divergence {
   public:
    explicit Kl(double sigma) : sigma_(sigma) {}
    double operator()(double mu, double lambda) const override {
      const double d = lambda - mu;
      if (sigma_ == 0.0) return d == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
      return d * d / (2.0 * sigma_ * sigma_);
    }
    double slope(double mu, double lambda) const override {
      return (lambda - mu) / (sigma_ * sigma_);
    }
    double curvature(double /*mu*/, double /*lambda*/) const override {
      return 1.0 / (sigma_ * sigma_);
    }
    double low_mean() const override { return -std::numeric_limits<double>::infinity(); }
    double high_mean() const override { return std::numeric_limits<double>::infinity(); }
    double quadratic_sigma() const override { return sigma_; }

   private:
    double sigma_;
  };
  static std::unique_ptr<const Divergence> divergence(const RewardFamily& family) {
    return std::make_unique<Kl>(sigma(family));
  }
  static constexpr std::string_view no_divergence = "";

  // Thompson sampling's posterior of the mean after n rewards of sum S,
  // sigma known: from the flat prior (Jeffreys' for a location), N(S / n,
  // sigma^2 / n) (Agrawal and Goyal 2013; Korda, Kaufmann and Munos 2013:
  // Thompson sampling with Jeffreys' prior is asymptotically optimal for
  // one-parameter exponential families). One normal by the ziggurat.
  class Posterior {
   public:
    // A draw's processor time, for the progress display's first estimate
    // (bench/README.md, "Thompson sampling baselines": one normal).
    static constexpr double draw_ns = 3.6;
    explicit Posterior(const RewardFamily& family) : sigma_(Gaussian::sigma(family)) {}
    double draw(std::uint64_t n, double sum, pcg32& stream) const {
      const auto x = static_cast<double>(n);
      return sum / x + sigma_ / std::sqrt(x) * rng::UnitNormal()(stream);
    }

   private:
    double sigma_;
  };
  static constexpr std::string_view no_posterior = "";

  class Sampler {
   public:
    // mu finite, sigma finite and >= 0: asserted, not checked, since the
    // instance and the family refused the rest as UserErrors, and a check
    // here would cost a tenth of an aggregated draw.
    Sampler(double mu, double sigma) : mu_(mu), sigma_(sigma) {
      assert(std::isfinite(mu) && sigma >= 0.0 && std::isfinite(sigma));
    }
    Sampler(double mu, const RewardFamily& family) : Sampler(mu, Gaussian::sigma(family)) {}

    // mu + sigma Z, one Z by the ziggurat.
    double draw(pcg32& stream) const { return mu_ + sigma_ * rng::UnitNormal()(stream); }

    // N(n mu, n sigma^2) by one Z. sum_of(1, s) is draw(s), to the bit.
    double sum_of(std::uint64_t n, pcg32& stream) const {
      const auto x = static_cast<double>(n);
      return x * mu_ + sigma_ * std::sqrt(x) * rng::UnitNormal()(stream);
    }

    // A sum of rewards drawn one at a time, as the per-pull mode draws them
    // (other arms' draws between them). X = mu + sigma Z: the Z are summed
    // and scaled once, which keeps the per-pull loop to one draw and one add.
    class Tally {
     public:
      explicit Tally(const Sampler& rewards) : mu_(rewards.mu_), sigma_(rewards.sigma_) {}
      void add(pcg32& stream) { noise_ += rng::UnitNormal()(stream); }
      // The sum of the rewards added; n is how many (the caller counts them,
      // so that add() stays one add).
      double sum(std::uint64_t n) const { return static_cast<double>(n) * mu_ + sigma_ * noise_; }

     private:
      double mu_;
      double sigma_;
      double noise_ = 0.0;
    };

    // Pulls of this arm on the walk Y_n = y + sum_{i <= n} (X_i - theta) (y < 0
    // taken as 0), up to `slots` of them: exactly up to the first n at which
    // Y_n < 0, or all `slots` if there is none (the authors'-code waiting,
    // algorithms/authors_waiting.hpp).
    Stretch until_below_zero(pcg32& stream, double y, double theta, std::uint64_t slots) const {
      const auto passage = rng::first_passage_below_zero(stream, y, mu_ - theta, sigma_, slots);
      const std::uint64_t n = passage.step > 0 ? passage.step : slots;
      // the walk's change over the n pulls, less theta per pull, is their sum
      return {n, passage.value - std::max(y, 0.0) + theta * static_cast<double>(n)};
    }

   private:
    double mu_;
    double sigma_;
  };
};

}  // namespace pfmab::families
