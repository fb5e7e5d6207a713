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
#include "pfmab/rng/samplers.hpp"

namespace pfmab::families {

// mu + T_nu rewards, T_nu Student's t with nu > 2 degrees of freedom (unit
// scale, variance nu / (nu - 2)): heavy tails, moments of order nu and above
// infinite. A sum of n of them has no closed law, so the family draws reward
// by reward only: its Sampler has no sum_of nor until_below_zero, and the
// aggregated mode refuses it (sim::Cell).
struct StudentT {
  static constexpr std::string_view name = "student-t";
  static constexpr std::string_view display = "Student-t";
  static constexpr std::array<FamilyParameter, 1> parameters{{
      {"nu", 3.0,
       limits::RealRange{2.0, 1e6, true,
                         "nu > 2 gives the rewards a finite variance; beyond 1e6 they are "
                         "Gaussian to 1e-6: use --rewards gaussian"},
       "Student-t reward degrees of freedom (heavier tails as it nears 2)"},
  }};
  static constexpr limits::RealRange means = limits::mean;
  static constexpr bool exact_sums = false;

  static double nu(const RewardFamily& family) { return family.values()[0]; }
  // Heavy-tailed, so not sub-Gaussian: algorithms whose bonus or planning
  // assumes it refuse the family.
  static double subgaussian_sigma(const RewardFamily& /*family*/) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  static double ucb_scale(const RewardFamily& /*family*/) {
    return std::numeric_limits<double>::quiet_NaN();
  }

  static std::unique_ptr<const Divergence> divergence(const RewardFamily& /*family*/) {
    return nullptr;
  }
  static constexpr std::string_view no_divergence =
      "the KL divergence between two Student-t locations has no closed form, and C* needs a "
      "one-parameter exponential family";
  // No Posterior: Thompson sampling refuses the family.
  static constexpr std::string_view no_posterior =
      "a Student-t location has no conjugate prior, so no posterior to draw from in closed form; "
      "pf-ucb, whose radius reads no constant of the rewards, runs on them";

  class Sampler {
   public:
    // mu finite, nu in (2, 1e6]: asserted, as Gaussian's (the instance and
    // the family refused the rest as UserErrors).
    Sampler(double mu, double nu) : mu_(mu), half_nu_(nu / 2.0) {
      assert(std::isfinite(mu) && nu > 2.0 && nu <= 1e6);
    }
    Sampler(double mu, const RewardFamily& family) : Sampler(mu, StudentT::nu(family)) {}

    // mu + Z / sqrt(V / nu), V ~ chi^2_nu = 2 Gamma(nu / 2): one normal and
    // one Gamma(nu / 2 > 1) (rng::gamma).
    double draw(pcg32& stream) const { return mu_ + noise(stream, half_nu_); }

    // mu n + the T_nu added one at a time (n mu formed once, as Gaussian's
    // Tally does).
    class Tally {
     public:
      explicit Tally(const Sampler& rewards) : mu_(rewards.mu_), half_nu_(rewards.half_nu_) {}
      void add(pcg32& stream) { noise_ += noise(stream, half_nu_); }
      double sum(std::uint64_t n) const { return static_cast<double>(n) * mu_ + noise_; }

     private:
      double mu_;
      double half_nu_;
      double noise_ = 0.0;
    };

   private:
    static double noise(pcg32& stream, double half_nu) {
      const double z = rng::UnitNormal()(stream);
      return z * std::sqrt(half_nu / rng::gamma(stream, half_nu));
    }

    double mu_;
    double half_nu_;
  };
};

}  // namespace pfmab::families
