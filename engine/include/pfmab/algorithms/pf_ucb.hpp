#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "pfmab/sim/algorithm.hpp"
#include "pfmab/sim/participation.hpp"
#include "pfmab/theory/phase_rule.hpp"

namespace pfmab::algorithms {

// Which rules PF-UCB follows where the paper and its authors' published code
// (ShenGroup/PF_MAB, client.py) differ (docs/internals.md, "The authors' code").
enum class Preset {
  paper,         // Algorithm 1 and 2 as printed
  authors_code,  // see the four rules below
};

std::string_view to_string(Preset preset);     // "paper", "authors-code"
Preset parse_preset(std::string_view name);    // throws UserError

struct PfUcbParams {
  theory::PhaseRuleSpec rule;  // the schedule f(p), c_B, L and the lengths
  Preset preset = Preset::paper;
  bool enhanced = false;  // lengths scaled per arm by estimated gaps (Sec. 6, Appendix A)
};

// PF-UCB with these options (the enhanced version if params.enhanced), as a
// cell's algorithm: what the registry's "pf-ucb" and "pf-ucb-enhanced" make
// from an experiment's values.
sim::AlgorithmChoice pf_ucb(PfUcbParams params = {});

// What the authors'-code preset changes, one rule each:
// - elimination against the largest mixed estimate over all K arms (an arm
//   out of A_m keeps its last one), when the gap exceeds 2 B strictly;
// - every pull, exploitation included, feeds the sample means;
// - exploration pulls each arm all its times in a row (Order::blocked);
// - the waiting arm is the argmax over all K arms of alpha s/N (current) +
//   (1 - alpha) times the last global means, chosen again after every pull.
inline bool eliminates_against_all_arms(Preset p) { return p == Preset::authors_code; }
inline bool exploitation_feeds_means(Preset p) { return p == Preset::authors_code; }
inline bool pulls_blocked(Preset p) { return p == Preset::authors_code; }

// The read-only part of PF-UCB for one cell: its phases' lengths and radii
// (theory::PhaseRule), and the options that are not the theory's. Valid once
// constructed.
class PfUcbRule : public theory::PhaseRule {
 public:
  // Throws what theory::PhaseRule's constructor throws.
  PfUcbRule(const PfUcbParams& params, double alpha, std::size_t clients, std::uint64_t horizon);

  const PfUcbParams& params() const { return params_; }

 private:
  PfUcbParams params_;
};

// One client's state (Algorithm 1): reward sums s_{k,m} and counts T_{k,m},
// local active set A_m, fixed arm O_m, the mixed estimates of its last
// update and the global means it last received.
class PfUcbClient {
 public:
  explicit PfUcbClient(std::size_t arms);

  // A_m(p), increasing arm indices; empty once the client has fixed its arm
  // (or, under the authors' rule only, eliminated every arm).
  std::span<const std::uint32_t> active() const { return active_; }
  std::optional<std::uint32_t> fixed_arm() const { return fixed_arm_; }

  // The arm played while waiting for the server under Algorithm 1: O_m if
  // fixed, else the argmax over A_m of the last mixed estimates, lowest index
  // on ties (in phase 1 every estimate is 0, so the lowest active arm).
  std::uint32_t exploit_arm() const;
  // The same under the authors' rule: O_m if fixed, else the argmax over all
  // K arms (pulled at least once) of alpha s_k / T_k + (1 - alpha) times the
  // last global means, lowest index on ties.
  std::uint32_t exploit_arm_authors(double alpha) const;
  // alpha s_k / T_k + (1 - alpha) mu_bar_k: what exploit_arm_authors ranks.
  double exploit_value(std::uint32_t arm, double alpha) const;

  // `pulls` rewards of `arm` summing to `reward_sum`.
  void record(std::uint32_t arm, std::uint64_t pulls, double reward_sum);
  std::uint64_t pulls(std::uint32_t arm) const { return pulls_[arm]; }
  double sum(std::uint32_t arm) const { return sums_[arm]; }
  // mu_bar_k as last received from the server (0 before the first time).
  double global_mean(std::uint32_t arm) const { return global_means_[arm]; }
  // mu_bar_{k,m} = s_{k,m} / T_{k,m}: what the client sends to the server.
  double sample_mean(std::uint32_t arm) const;

  // Step 6 of the phase. The mixed estimates mu_bar'_{k,m} = alpha
  // mu_bar_{k,m} + (1 - alpha) mu_bar_k, then elimination with radius B:
  // under Algorithm 1 for k in A_m, dropping k when max_{l in A_m} mu_bar'_l -
  // mu_bar'_k >= 2B (Eqn. (8)); under the authors' rule for every arm pulled,
  // dropping k in A_m when max over all K - mu_bar'_k > 2B. One arm left is
  // fixed. `global_means` is indexed by arm.
  void update(std::span<const double> global_means, double alpha, double radius,
              Preset preset = Preset::paper);

  // The enhanced algorithm's gap estimates after an update with radius B
  // (Sec. 6): Dbar'_{k,m} = max_l mu_bar'_{l,m} - mu_bar'_{k,m} + 2B over all
  // K arms, capped at 1 (every arm 1 before the first update).
  std::vector<double> gap_estimates(double radius) const;

 private:
  std::vector<double> sums_;
  std::vector<std::uint64_t> pulls_;
  std::vector<double> mixed_estimates_;
  std::vector<double> global_means_;  // as last received from the server
  std::vector<std::uint32_t> active_;
  std::optional<std::uint32_t> fixed_arm_;
  bool updated_ = false;
};

// The server (Algorithm 2): the global active set A(p), every client's
// latest reported means, the aggregated global means and, for the enhanced
// algorithm, every client's last gap estimates.
class PfUcbServer {
 public:
  PfUcbServer(std::size_t arms, std::size_t clients);

  // A(p), increasing arm indices; empty when every client has left it.
  std::span<const std::uint32_t> active() const { return active_; }
  // mu_bar_k(p), indexed by arm.
  std::span<const double> global_means() const { return global_means_; }

  // Receives the participants' sample means mu_bar_{k,m}, then sets mu_bar_k
  // to the mean of the reported mu_bar_{k,n}, summed in client order, over
  // every client that has reported arm k (sim::Aggregation::latest: absent ones
  // count with the means they last sent) or over the participants only
  // (sim::Aggregation::participants). For k in A under Algorithm 1, for every arm
  // under the authors' rule; a client reports the arms it has pulled.
  void aggregate(std::span<const PfUcbClient> clients, std::span<const std::uint32_t> participants,
                 Preset preset, sim::Aggregation aggregation);
  // A(p+1) = union of the clients' A_m(p+1).
  void unite(std::span<const PfUcbClient> clients);

  // Enhanced: client m's gap estimates, sent through the server.
  void receive_gaps(std::size_t client, std::vector<double> gaps);
  // Enhanced, once every participant's gaps are in: for each arm k the sum
  // over clients of sqrt(D_{k,n}) and whether every D_{k,n} is the same, so
  // that a length factor costs O(1), not O(M) (a phase O(M K), not O(M^2 K)).
  void combine_gaps();
  // (alpha sqrt(D_{k,m}) + ((1 - alpha)/M) sum_n sqrt(D_{k,n})) / sqrt(D_{k,m}),
  // exactly 1 when every client's estimate for arm k equals client m's: the
  // gaps as last combined.
  double length_factor(std::size_t client, std::uint32_t arm, double alpha) const;

 private:
  std::vector<std::uint32_t> active_;
  std::vector<double> global_means_;
  std::vector<std::vector<std::optional<double>>> reports_;  // per client, per arm: last mean sent
  std::vector<std::vector<double>> gaps_;                    // per client, per arm
  std::vector<double> roots_;                                // per arm: sum_n sqrt(D_{k,n})
  std::vector<bool> alike_;                                  // per arm: every D_{k,n} equal
};

}  // namespace pfmab::algorithms
