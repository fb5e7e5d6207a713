#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "pfmab/families/divergence.hpp"
#include "pfmab/model/instance.hpp"
#include "pfmab/model/mixed_model.hpp"
#include "pfmab/theory/games.hpp"
#include "pfmab/theory/phase_rule.hpp"
#include "pfmab/util/stop_token.hpp"

namespace pfmab::theory {

// The paper's theory for one cell (Sections 3 and 5).
//
// Arms tied with a client's optimum count as optimal for it (the paper
// assumes a unique optimal arm per client).
struct Bounds {
  // Theorem 1: liminf R(T) / log T >= theorem1_constant for any consistent
  // algorithm. The KL divergences are taken within the reward family: kl of
  // Y_{k,m} against Y_{k'*,m} is the divergence between client m's reward
  // law of arm k at mean mu_{k,m} and at the mean that makes its mixed mean
  // mu'_{k'*,m} (mu_{k,m} + Delta'_{k,m} / beta); likewise for Z^m_{k,n} with
  // gamma and Delta'_{k,n}. For Gaussian rewards that is the paper's
  // (Delta')^2 / (2 beta^2 sigma^2); where that mean is beyond the family's
  // (a Bernoulli mean above 1) the divergence is infinite (the term 0). NaN
  // for a family without a divergence.
  double theorem1_constant = 0.0;
  // Corollary 1 as printed (Gaussian rewards; sigma^2 times the paper's
  // unit-variance terms; Delta'_k = min over every n with k'*_n != k). NaN for
  // other families.
  double corollary1_constant = 0.0;
  // C* (docs/allocation.md): the tight constant, liminf R(T) / log T >= C*
  // for any uniformly good algorithm, the optimum of the coupled program.
  // Gaussian rewards; NaN for Bernoulli rewards and for a game beyond the
  // solver's limit (c_star_note says why; theory::Games). Finite where a
  // client's best arm is tied: the tied arms count as optimal, as above.
  double c_star = 0.0;
  std::string c_star_note;   // why c_star is NaN; empty otherwise
  std::size_t game = 0;      // its game's index in the run's Games (the output's games/NNNN)
  double log_horizon = 0.0;  // log T
  // Theorem 2 (Eqn. (10)) at T for the cell's schedule f(p) and costs: an
  // upper bound on PF-UCB's R(T). NaN when it does not apply (see note).
  double theorem2_upper = 0.0;
  std::string theorem2_note;  // why theorem2_upper is NaN; empty otherwise

  double theorem1_lower() const { return theorem1_constant * log_horizon; }
  double corollary1_lower() const { return corollary1_constant * log_horizon; }
  // An asymptotic constant times log T: what regret / log T tends to at best,
  // not a bound on the regret at T (docs/bounds.md).
  double c_star_log_horizon() const { return c_star * log_horizon; }
};

// The divergence between the family's reward law at mean `mu` and at mean
// `mu + shift` (shift > 0): shift^2 / (2 sigma^2) for Gaussian rewards
// (exactly so, not through mu + shift), infinite past the family's means.
double kl_shifted(const families::Divergence& kl, double mu, double shift);

// Theorem 2 needs more phases than this before some arm's elimination is
// guaranteed (constant schedules with tiny gaps): not evaluated.
inline constexpr std::uint64_t kMaxBoundPhases = 1'000'000;

// `theorem2_inapplicable`: why Theorem 2 does not bound the cell's algorithm
// (it is stated for PF-UCB as Algorithm 1 prints it), empty if it does;
// `rule`: PF-UCB's phases, nullptr for another algorithm (then a reason is
// given).
// C* is the game's in `games`, solved there if no cell asked for it before.
// The C* solve polls `stop` (throwing Interrupted): on a large game it takes
// up to about a second, and a stop request is honoured within one Newton
// step.
Bounds compute_bounds(const model::Instance& instance, const model::MixedModel& mixed, Games& games,
                      const PhaseRule* rule, std::uint64_t horizon, double comm_cost,
                      const std::string& theorem2_inapplicable = {}, const StopToken& stop = {});

}  // namespace pfmab::theory
