#include "pfmab/theory/phase_rule.hpp"

#include <cmath>

#include <fmt/format.h>

#include "pfmab/model/mixed_model.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/limits.hpp"

namespace pfmab::theory {
namespace {

// ceil(weight f), f = f(p) times a length factor, as a slot count. A zero
// weight (alpha = 0 or 1) is no pulls, also where f overflowed to infinity.
// Lengths beyond any horizon (T <= 2^62 slots) are capped, which cannot
// change a run: the horizon cuts such a phase anyway. The ranges of
// docs/limits.md keep f finite or +infinity and > 0, never NaN.
std::uint64_t ceil_to_slots(double weight, double f) {
  if (weight == 0.0) return 0;
  constexpr double cap = 0x1p62;
  const double x = weight * f;
  return x < cap ? static_cast<std::uint64_t>(std::ceil(x)) : static_cast<std::uint64_t>(cap);
}

}  // namespace

std::string_view to_string(Lengths lengths) {
  return lengths == Lengths::paper ? "paper" : "large-m";
}

Lengths parse_lengths(std::string_view name) {
  if (name == "paper") return Lengths::paper;
  if (name == "large-m") return Lengths::large_m;
  throw UserError(fmt::format(
      "unknown exploration lengths '{}' (expected 'paper' or 'large-m', the Remark of Sec. 4)",
      excerpt(name)));
}

PhaseRule::PhaseRule(const PhaseRuleSpec& spec, double alpha, std::size_t clients,
                     std::uint64_t horizon)
    : spec_(spec),
      alpha_(alpha),
      clients_(static_cast<double>(clients)),
      log_term_(std::log(static_cast<double>(horizon) *
                         (spec.log_term == LogTerm::clients_horizon ? clients_ : 1.0))),
      schedule_(spec.schedule, horizon) {
  model::validate_alpha(alpha);
  validate_confidence_constant(spec.confidence_constant);
}

void validate_confidence_constant(double constant) {
  limits::check(constant, "confidence constant c_B", limits::confidence_constant);
}

std::uint64_t PhaseRule::global_rounds(std::uint64_t phase, double factor) const {
  const double weight = spec_.lengths == Lengths::paper ? 1.0 - alpha_ : (1.0 - alpha_) / clients_;
  return ceil_to_slots(weight, schedule_.f(phase) * factor);
}

std::uint64_t PhaseRule::local_rounds(std::uint64_t phase, double factor) const {
  const double weight = spec_.lengths == Lengths::paper ? clients_ * alpha_ : alpha_;
  return ceil_to_slots(weight, schedule_.f(phase) * factor);
}

double PhaseRule::confidence_radius(std::uint64_t phase) const {
  return confidence_radius_at(schedule_.cumulative(phase));
}

double PhaseRule::confidence_radius_latest(double own, double mean_inverse) const {
  // The proof of Lemma 1 with per-client schedules (docs/algorithms.md): the
  // mixed estimate's variance proxy is at most 1/(M F'_m) (paper lengths) or
  // 1/F'_m (large-M), with 1/F'_m = alpha/F_m + (1 - alpha) H. A zero weight
  // drops its term, also when the term is infinite (0 * inf is NaN).
  auto weighted = [](double weight, double inverse) {
    return weight == 0.0 ? 0.0 : weight * inverse;
  };
  const double inverse = weighted(alpha_, 1.0 / own) + weighted(1.0 - alpha_, mean_inverse);
  return confidence_radius_at(1.0 / inverse);
}

double PhaseRule::confidence_radius_at(double cumulative) const {
  // The mixed estimate's variance (unit-variance rewards) is alpha^2/n_l-total
  // + ((1 - alpha)/M)^2 M/n_g-total: 1/(M F(p)) with Algorithm 1's lengths,
  // hence B_p's M. The large-M lengths divide both runs by M, so the variance
  // is 1/F(p) and the radius must drop the M to keep its guarantee.
  const double samples = spec_.lengths == Lengths::paper ? clients_ * cumulative : cumulative;
  return std::sqrt(spec_.confidence_constant * log_term_ / samples);
}

}  // namespace pfmab::theory
