#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "pfmab/model/mixed_model.hpp"
#include "pfmab/util/stop_token.hpp"

// The tight asymptotic lower bound of PF-MAB, C* (docs/allocation.md): the
// least regret per log T of a uniformly good algorithm, as the optimum of a
// convex program over how often each client explores each arm. Gaussian
// rewards.
namespace pfmab::theory {

// Which alternatives the program rules out: the coupled program moves arm k
// and client m's best arm together (the tight bound); the separable one
// moves arm k only, a smaller program that splits arm by arm (still a lower
// bound, never above the coupled one).
enum class Coupling { coupled, separable };

struct OptimalAllocation {
  // C*: lim inf R(T) / log T >= constant. 0 with noiseless rewards. +inf
  // where an arm other than a client's mixed-optimal one has a zero gap and
  // is not passed in `tied`; passed, it counts as optimal and C* is finite
  // (theory::exact_ties, which Games passes).
  double constant = 0.0;
  // x_{k,n} = lim E[N_{k,n}(T)] / log T, row-major client by arm, at the
  // optimum; +inf at each client's mixed-optimal arm (pulled about T times).
  std::vector<double> pulls;
  // The optimum is certified to within this share of `constant`: the
  // program's dual at the solver's multipliers is at least
  // constant * (1 - gap).
  double gap = 0.0;
  // Each constraint's share of `constant` at the solver's multipliers y
  // (y_{k,m} times the constraint's right side, over their sum), row-major
  // client by arm, 0 at each client's best arm: with `pulls`, where a warm
  // start begins.
  std::vector<double> shares;
  unsigned newton_steps = 0;  // interior-point iterations, one factorisation each
};

// The relative duality gap the solve for C* aims at: at the edge of what
// double precision certifies (1e-13 to 1e-10 on the paper's games and on
// random ones up to 1000 x 50), so the solve goes as far as it can.
inline constexpr double kExactGap = 1e-11;

// Solves the program for the mixed model `mixed` with Gaussian rewards of
// standard deviation `sigma` (a primal-dual interior-point method whose
// Newton systems are solved through the weights' structure, identity plus
// rank one, in O(M K + K L^2 + L^3) for L <= min(M, K) distinct best arms),
// stopping once the certified gap is within `gap_share` of the objective:
// an algorithm that re-solves with noisy estimates every phase needs about
// 1e-3, not 1e-11. Polls `stop` within every iteration (throwing
// Interrupted).
//
// `warm_start`, a solution of a nearby program of the same size (the last
// phase's estimates, the previous alpha of a sweep), is where the iteration
// begins: its pulls, pulled into the new program's interior, and its
// shares. Variables it has no finite pulls for (a client's best arm that
// changed) start cold. The result is certified the same way, whatever the
// start.
//
// `tied`, if not empty (row-major client by arm, nonzero: tied), names arms
// the program treats as optimal for a client beside its mixed-optimal one:
// they have no variable and no constraint (Graves and Lai: an alternative
// leaves every optimal arm's distribution unchanged, so tied best arms cost
// nothing; docs/allocation.md, "Ties"), and their pulls are +inf. pf-alloc
// passes the arms its estimates tie with a client's best, so that the
// estimated game's program stays finite (docs/pf-alloc.md, rule 7).
OptimalAllocation optimal_allocation(const model::MixedModel& mixed, double sigma,
                                     Coupling coupling = Coupling::coupled,
                                     double gap_share = kExactGap, const StopToken& stop = {},
                                     const OptimalAllocation* warm_start = nullptr,
                                     std::span<const std::uint8_t> tied = {});

// optimal_allocation for a caller that solves again and again (pf-alloc, each
// phase): the program, its Newton system and the iterates stay in this
// object between solves, and the result is written into `out`'s vectors,
// so that once the sizes settle a solve allocates nothing. The same
// results, bit for bit. One solve at a time.
class AllocationSolver {
 public:
  AllocationSolver();
  ~AllocationSolver();
  AllocationSolver(const AllocationSolver&) = delete;
  AllocationSolver& operator=(const AllocationSolver&) = delete;

  void solve(const model::MixedModel& mixed, double sigma, Coupling coupling, double gap_share,
             const StopToken& stop, const OptimalAllocation* warm_start,
             std::span<const std::uint8_t> tied, OptimalAllocation& out);

 private:
  struct Workspace;  // allocation.cpp's
  std::unique_ptr<Workspace> workspace_;
};

}  // namespace pfmab::theory
