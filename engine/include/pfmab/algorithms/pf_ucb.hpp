#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "pfmab/algorithms/schedule.hpp"

namespace pfmab::algorithms {

enum class LogTerm {
  horizon,          // L = log T (Eqn. (8))
  clients_horizon,  // L = log(M T) (remark after Theorem 2)
};

struct PfUcbParams {
  ScheduleSpec schedule;
  double confidence_constant = 4.0;  // c_B in B_p = sqrt(c_B L / (M F(p)))
  LogTerm log_term = LogTerm::horizon;
};

// Throws UserError unless c_B is a finite number > 0.
void validate_confidence_constant(double constant);

// The read-only part of PF-UCB for one cell (Sec. 4): exploration lengths and
// confidence radii per phase. Valid once constructed.
class PfUcbRule {
 public:
  // Throws UserError for alpha outside [0, 1], a non-positive confidence
  // constant, or an invalid schedule.
  PfUcbRule(const PfUcbParams& params, double alpha, std::size_t clients, std::uint64_t horizon);

  const PfUcbParams& params() const { return params_; }
  double alpha() const { return alpha_; }
  const ExplorationSchedule& schedule() const { return schedule_; }

  // n_g(p) = ceil((1 - alpha) f(p)): pulls of every arm of A(p), every client.
  std::uint64_t global_rounds(std::uint64_t phase) const;
  // n_l(p) = ceil(M alpha f(p)): pulls of every arm of A_m(p), client m.
  std::uint64_t local_rounds(std::uint64_t phase) const;
  // B_p = sqrt(c_B L / (M F(p))), Eqn. (8).
  double confidence_radius(std::uint64_t phase) const;

 private:
  PfUcbParams params_;
  double alpha_;
  double clients_;
  double log_term_;
  ExplorationSchedule schedule_;
};

// One client's state (Algorithm 1): reward sums s_{k,m} and counts T_{k,m}
// over exploration pulls, local active set A_m, fixed arm O_m, and the mixed
// estimates of its last completed phase.
class PfUcbClient {
 public:
  explicit PfUcbClient(std::size_t arms);

  // A_m(p), increasing arm indices; empty once the client has fixed its arm.
  std::span<const std::uint32_t> active() const { return active_; }
  std::optional<std::uint32_t> fixed_arm() const { return fixed_arm_; }

  // The arm played while waiting for the server: O_m if fixed, else the
  // argmax over A_m of the previous phase's mixed estimates, lowest index on
  // ties (in phase 1 every estimate is 0, so the lowest active arm).
  std::uint32_t exploit_arm() const;

  // Exploration pulls: `pulls` rewards of `arm` summing to `reward_sum`.
  void record(std::uint32_t arm, std::uint64_t pulls, double reward_sum);
  std::uint64_t pulls(std::uint32_t arm) const { return pulls_[arm]; }
  // mu_bar_{k,m} = s_{k,m} / T_{k,m}: what the client sends to the server.
  double sample_mean(std::uint32_t arm) const;

  // Steps 6 of the phase: mixed estimates mu_bar'_{k,m} = alpha mu_bar_{k,m} +
  // (1 - alpha) mu_bar_k for k in A_m, elimination by Eqn. (8) with radius
  // B_p, and fixing the arm when one is left. `global_means` is indexed by arm.
  void update(std::span<const double> global_means, double alpha, double radius);

 private:
  std::vector<double> sums_;
  std::vector<std::uint64_t> pulls_;
  std::vector<double> mixed_estimates_;
  std::vector<std::uint32_t> active_;
  std::optional<std::uint32_t> fixed_arm_;
};

// The server (Algorithm 2): the global active set A(p) and the aggregated
// global means.
class PfUcbServer {
 public:
  explicit PfUcbServer(std::size_t arms);

  // A(p), increasing arm indices; empty when every client has fixed its arm.
  std::span<const std::uint32_t> active() const { return active_; }
  // mu_bar_k(p), indexed by arm; meaningful for the arms of A(p).
  std::span<const double> global_means() const { return global_means_; }

  // mu_bar_k = (1/M) sum_m mu_bar_{k,m} for k in A, summed in client order.
  void aggregate(std::span<const PfUcbClient> clients);
  // A(p+1) = union of the clients' A_m(p+1).
  void unite(std::span<const PfUcbClient> clients);

 private:
  std::vector<std::uint32_t> active_;
  std::vector<double> global_means_;
};

}  // namespace pfmab::algorithms
