#include "pfmab/theory/bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace pfmab::theory {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// x / divergence, with x / inf = 0 (an arm no alternative can make optimal
// costs nothing to learn).
double per_divergence(double x, double divergence) {
  return std::isinf(divergence) ? 0.0 : x / divergence;
}

// x / kl(mu, mu + shift). With Gaussian rewards x and the shift are first
// scaled by one power of two, which is exact and undone exactly: the shift
// squared would underflow for gaps below 1e-154, whose bounds are finite.
double per_divergence(const families::Divergence& kl, double mu, double x, double shift) {
  if (std::isnan(kl.quadratic_sigma()) || !(shift > 0.0) || !std::isfinite(shift)) {
    return per_divergence(x, kl_shifted(kl, mu, shift));
  }
  const int scale = -std::ilogb(shift);
  return std::ldexp(
      per_divergence(std::ldexp(x, scale), kl_shifted(kl, mu, std::ldexp(shift, scale))), scale);
}

}  // namespace

double kl_shifted(const families::Divergence& kl, double mu, double shift) {
  if (const double sigma = kl.quadratic_sigma(); !std::isnan(sigma)) {
    if (sigma == 0.0) return inf;
    return shift * shift / (2.0 * sigma * sigma);
  }
  const double q = mu + shift;
  return q > kl.high_mean() ? inf : kl(mu, q);
}

Bounds compute_bounds(const model::Instance& instance, const model::MixedModel& mixed, Games& games,
                      const PhaseRule* rule, std::uint64_t horizon, double comm_cost,
                      const std::string& theorem2_inapplicable, const StopToken& stop) {
  const std::size_t clients = instance.clients(), arms = instance.arms();
  const double m_count = static_cast<double>(clients), alpha = mixed.alpha();
  const double beta = alpha + (1.0 - alpha) / m_count;  // weight of client m's own reward
  const double gamma = (1.0 - alpha) / m_count;         // weight of each other client's
  const auto& family = instance.rewards();
  const auto kl = family.divergence();
  const double sigma = kl ? kl->quadratic_sigma() : nan;
  const bool gaussian = !std::isnan(sigma);
  const double variance = sigma * sigma;
  auto optimal = [&](std::size_t m, std::size_t k) { return mixed.gap(m, k) == 0.0; };

  Bounds b;
  b.log_horizon = std::log(static_cast<double>(horizon));
  b.game = games.add(instance, mixed, stop);
  const auto& game = games[b.game];
  b.c_star = game.c_star;
  b.c_star_note = game.note;
  b.corollary1_constant = gaussian ? 0.0 : nan;
  if (!kl) b.theorem1_constant = nan;
  for (std::size_t m = 0; m < clients && kl; ++m) {
    for (std::size_t k = 0; k < arms; ++k) {
      if (optimal(m, k)) continue;
      const double gap = mixed.gap(m, k), mu = instance.local_means(m)[k];
      // Theorem 1: learning arm k for client m itself (Y), and for the
      // client n != m that needs client m's arm-k information most (Z).
      const double local = per_divergence(*kl, mu, gap, gap / beta);
      double hardest = 0.0;  // gap / kl for the client with the least divergence
      for (std::size_t n = 0; n < clients && gamma > 0.0; ++n) {
        if (n != m && !optimal(n, k)) {
          hardest = std::max(hardest, per_divergence(*kl, mu, gap, mixed.gap(n, k) / gamma));
        }
      }
      b.theorem1_constant += std::max(local, hardest);
      if (gaussian) {
        // Corollary 1: Delta'_k over every client for which k is suboptimal
        double smallest_gap = inf;
        for (std::size_t n = 0; n < clients; ++n) {
          if (!optimal(n, k)) smallest_gap = std::min(smallest_gap, mixed.gap(n, k));
        }
        // the second term's gaps scaled by a power of two, exactly, as in
        // per_divergence: the smallest squared would underflow below 1e-154
        const int scale = -std::ilogb(smallest_gap);
        const double scaled = std::ldexp(smallest_gap, scale);
        b.corollary1_constant += std::max(
            2.0 * beta * beta * variance / gap,
            std::ldexp(2.0 * gamma * gamma * variance * std::ldexp(gap, scale) / (scaled * scaled),
                       scale));
      }
    }
  }

  // Theorem 2, Eqn. (10).
  if (!rule || !theorem2_inapplicable.empty()) {
    b.theorem2_upper = nan;
    b.theorem2_note = theorem2_inapplicable;
    return b;
  }
  if (std::isnan(family.subgaussian_sigma())) {
    b.theorem2_upper = nan;
    b.theorem2_note = fmt::format("Theorem 2 assumes sub-Gaussian rewards; {} rewards are not",
                                  family.family().display());
    return b;
  }
  const auto& spec = rule->spec();
  if (spec.confidence_constant != 4.0 || spec.log_term != LogTerm::horizon) {
    b.theorem2_upper = nan;
    b.theorem2_note = "Theorem 2 is stated for c_B = 4 and L = log T";
    return b;
  }
  const auto& schedule = rule->schedule();
  // p'_{k,m}: the first phase with M F(p) >= 64 log T / Delta'^2 (Eqn. (9))
  auto first_phase = [&](double gap) -> std::optional<std::uint64_t> {
    const double target = 64.0 * b.log_horizon / (gap * gap);
    for (std::uint64_t p = 1; p <= kMaxBoundPhases; ++p) {
      if (m_count * schedule.cumulative(p) >= target) return p;
    }
    return std::nullopt;
  };
  std::vector<std::uint64_t> phase(clients * arms, 0);  // p'_{k,m}, 0 for optimal arms
  std::vector<std::uint64_t> arm_phase(arms, 0);        // p'_k = max_m p'_{k,m}
  for (std::size_t m = 0; m < clients; ++m) {
    for (std::size_t k = 0; k < arms; ++k) {
      if (optimal(m, k)) continue;
      const auto p = first_phase(mixed.gap(m, k));
      if (!p) {
        b.theorem2_upper = nan;
        b.theorem2_note =
            fmt::format("not evaluated: eliminating arm {} at client {} takes more than {} phases",
                        k, m, kMaxBoundPhases);
        return b;
      }
      phase[m * arms + k] = *p;
      arm_phase[k] = std::max(arm_phase[k], *p);
    }
  }
  // sum_{p <= p'_k} ceil((1 - alpha) f(p)): the global exploration of arm k,
  // the same for every client
  std::vector<double> global(arms, 0.0);
  for (std::size_t k = 0; k < arms; ++k) {
    for (std::uint64_t p = 1; p <= arm_phase[k]; ++p) {
      global[k] += static_cast<double>(rule->global_rounds(p));
    }
  }
  double bound = 0.0;
  const double k_count = static_cast<double>(arms);
  for (std::size_t m = 0; m < clients; ++m) {
    for (std::size_t k = 0; k < arms; ++k) {
      if (optimal(m, k)) continue;
      const double gap = mixed.gap(m, k);
      double local = 0.0, exploit = 0.0;
      for (std::uint64_t p = 1; p <= phase[m * arms + k]; ++p) {
        const auto n_l = static_cast<double>(rule->local_rounds(p));  // ceil(alpha M f(p))
        local += n_l;
        // P'_{k,m}(p) = exp(-Delta'^2 M F(p-1) / 4)
        exploit +=
            k_count * n_l * std::exp(-gap * gap * m_count * schedule.cumulative(p - 1) / 4.0);
      }
      bound += gap * (local + global[k] + exploit);
    }
  }
  const double longest = static_cast<double>(*std::max_element(arm_phase.begin(), arm_phase.end()));
  bound += 2.0 * comm_cost * m_count * longest;                          // communication
  bound += 2.0 * (1.0 + 2.0 * comm_cost) * m_count * m_count * k_count;  // failure of event G
  b.theorem2_upper = bound;
  return b;
}

}  // namespace pfmab::theory
