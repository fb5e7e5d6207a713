#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pfmab/theory/schedule.hpp"

namespace pfmab::theory {

enum class LogTerm {
  horizon,          // L = log T (Eqn. (8))
  clients_horizon,  // L = log(M T) (remark after Theorem 2)
};

// The exploration lengths of a phase.
enum class Lengths {
  paper,    // n_g = ceil((1 - alpha) f(p)), n_l = ceil(M alpha f(p)) (Sec. 4)
  large_m,  // n_g = ceil((1 - alpha) f(p) / M), n_l = ceil(alpha f(p)) (Remark, Sec. 4)
};

std::string_view to_string(Lengths lengths);   // "paper", "large-m"
Lengths parse_lengths(std::string_view name);  // throws UserError

// What fixes PF-UCB's phases (Sec. 4).
struct PhaseRuleSpec {
  ScheduleSpec schedule;
  double confidence_constant = 4.0;  // c_B in B_p = sqrt(c_B L / (M F(p)))
  LogTerm log_term = LogTerm::horizon;
  Lengths lengths = Lengths::paper;
};

// Throws UserError unless c_B is a finite number > 0.
void validate_confidence_constant(double constant);

// PF-UCB's phases for one cell (Sec. 4): exploration lengths and confidence
// radii per phase, which Algorithm 1 follows (algorithms::PfUcbRule) and in
// which Theorem 2 is stated (compute_bounds). Valid once constructed.
class PhaseRule {
 public:
  // Throws UserError for alpha outside [0, 1], a non-positive confidence
  // constant, or an invalid schedule.
  PhaseRule(const PhaseRuleSpec& spec, double alpha, std::size_t clients, std::uint64_t horizon);

  const PhaseRuleSpec& spec() const { return spec_; }
  double alpha() const { return alpha_; }
  const ExplorationSchedule& schedule() const { return schedule_; }

  // Pulls of an arm in global exploration, every client: n_g(p) =
  // ceil((1 - alpha) f(p)) (or / M, large-M lengths), times the enhanced
  // algorithm's `factor` for that client and arm (1: plain PF-UCB).
  std::uint64_t global_rounds(std::uint64_t phase, double factor = 1.0) const;
  // Local exploration: n_l(p) = ceil(M alpha f(p)) (or ceil(alpha f(p))).
  std::uint64_t local_rounds(std::uint64_t phase, double factor = 1.0) const;
  // B_p = sqrt(c_B L / (M F(p))), Eqn. (8).
  double confidence_radius(std::uint64_t phase) const;
  // The same for a client whose own cumulative schedule is `cumulative`
  // (under partial participation, the sum of f over the phases it took part
  // in); infinite for 0.
  double confidence_radius_at(double cumulative) const;
  // The radius of client m's mixed estimate when the server averages every
  // client's latest report (docs/algorithms.md, "Partial participation"):
  // confidence_radius_at(F'_m) with 1/F'_m = alpha/F_m + (1 - alpha) H, where
  // F_m = `own` is m's cumulative schedule and H = `mean_inverse` the mean
  // over all clients n of 1/F_n. Infinite while some client has never
  // reported (H infinite) unless alpha = 1. Equals B_p when every F_n = F(p).
  double confidence_radius_latest(double own, double mean_inverse) const;

 private:
  PhaseRuleSpec spec_;
  double alpha_;
  double clients_;
  double log_term_;
  ExplorationSchedule schedule_;
};

}  // namespace pfmab::theory
