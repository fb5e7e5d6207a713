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

// Bernoulli(mu) rewards, mu in [0, 1]: the paper's MovieLens game.
struct Bernoulli {
  static constexpr std::string_view name = "bernoulli";
  static constexpr std::string_view display = "Bernoulli";
  static constexpr std::array<FamilyParameter, 0> parameters{};
  static constexpr limits::RealRange means{0.0, 1.0, false, "a Bernoulli mean is a probability"};
  static constexpr bool exact_sums = true;

  // Rewards in [0, 1] are 1/2-sub-Gaussian (Hoeffding).
  static double subgaussian_sigma(const RewardFamily& /*family*/) { return 0.5; }
  // UCB1 as stated for rewards in [0, 1]
  static double ucb_scale(const RewardFamily& /*family*/) { return 1.0; }

  // mu log(mu / lambda) + (1 - mu) log((1 - mu) / (1 - lambda)), with
  // 0 log 0 = 0.
  class Kl final : public Divergence {
   public:
    double operator()(double mu, double lambda) const override {
      return part(mu, lambda) + part(1.0 - mu, 1.0 - lambda);
    }
    double slope(double mu, double lambda) const override {
      return (lambda - mu) / (lambda * (1.0 - lambda));
    }
    double curvature(double mu, double lambda) const override {
      return mu / (lambda * lambda) + (1.0 - mu) / ((1.0 - lambda) * (1.0 - lambda));
    }
    double low_mean() const override { return 0.0; }
    double high_mean() const override { return 1.0; }

   private:
    // p log(p / q), 0 at p = 0, +inf at q = 0 < p
    static double part(double p, double q) {
      if (p == 0.0) return 0.0;
      if (q == 0.0) return std::numeric_limits<double>::infinity();
      return p * std::log(p / q);
    }
  };
  static std::unique_ptr<const Divergence> divergence(const RewardFamily& /*family*/) {
    return std::make_unique<Kl>();
  }
  static constexpr std::string_view no_divergence = "";

  // Thompson sampling's posterior of the mean after n rewards with S
  // successes: from the uniform prior, Beta(1 + S, 1 + n - S) (Thompson
  // 1933; Kaufmann, Korda and Munos 2012: asymptotically optimal). Two
  // gamma draws (rng::beta).
  class Posterior {
   public:
    // A draw's processor time, for the progress display's first estimate
    // (bench/README.md, "Thompson sampling baselines": two gammas).
    static constexpr double draw_ns = 18.4;
    explicit Posterior(const RewardFamily& /*family*/) {}
    double draw(std::uint64_t n, double sum, pcg32& stream) const {
      return rng::beta(stream, 1.0 + sum, 1.0 + (static_cast<double>(n) - sum));
    }
  };
  static constexpr std::string_view no_posterior = "";

  class Sampler {
   public:
    // Throws std::invalid_argument for mu outside [0, 1] (the instance
    // refuses those first, as UserErrors).
    explicit Sampler(double mu) : mu_(checked(mu)), threshold_(rng::bernoulli_threshold(mu)) {}
    Sampler(double mu, const RewardFamily& /*family*/) : Sampler(mu) {}

    // One 32-bit draw against round(mu 2^32) (bernoulli_threshold).
    double draw(pcg32& stream) const { return std::uint64_t{stream()} < threshold_ ? 1.0 : 0.0; }

    // Binomial(n, mu), with mu itself rather than the threshold. Agrees with
    // draw() in law at n = 1, not in bits: it takes two 32-bit draws. n below
    // 2^63.
    double sum_of(std::uint64_t n, pcg32& stream) const {
      return static_cast<double>(rng::binomial(stream, static_cast<std::int64_t>(n), mu_));
    }

    // The successes counted, each as draw() decides it.
    class Tally {
     public:
      explicit Tally(const Sampler& rewards) : threshold_(rewards.threshold_) {}
      void add(pcg32& stream) { successes_ += std::uint64_t{stream()} < threshold_; }
      double sum(std::uint64_t /*n*/) const { return static_cast<double>(successes_); }

     private:
      std::uint64_t threshold_;
      std::uint64_t successes_ = 0;
    };

    // Rewards are 0 or 1: nonnegative.hpp's stretches.
    Stretch until_below_zero(pcg32& stream, double y, double theta, std::uint64_t slots) const {
      return nonnegative_until_below_zero(*this, stream, y, theta, slots);
    }

   private:
    // mu, once known to be in [0, 1] (before the threshold is taken of it)
    static double checked(double mu) {
      if (!(mu >= 0.0 && mu <= 1.0)) refuse_rewards("Bernoulli rewards: mu must be in [0, 1]");
      return mu;
    }

    double mu_;
    std::uint64_t threshold_;
  };
};

}  // namespace pfmab::families
