#pragma once

#include <cstdint>
#include <span>

#include "pfmab/families/divergence.hpp"
#include "pfmab/model/mixed_model.hpp"
#include "pfmab/theory/allocation.hpp"
#include "pfmab/util/stop_token.hpp"

namespace pfmab::theory {

// C* for a reward family given by its KL divergence (docs/allocation.md,
// "Other reward families: the KL program"): the program of
// optimal_allocation with the family's KL(mu, lambda) in place of the
// Gaussian (lambda - mu)^2 / (2 sigma^2). Each constraint (k, m) asks that
// every alternative moving arm k's local means up where it is explored and
// client m's best arm's down where that one is explored, until arm k leads
// at m, be told apart: sum_n x_{k,n} KL(mu, lambda) + sum_n x_{k*_m,n}
// KL(mu, lambda) >= 1 at the least informative such alternative, found
// within the family's range of means (an arm no alternative in the range
// can make client m's best costs it nothing).
//
// Solved by a barrier method over the pulls x, each constraint's closest
// alternative found anew at each x by its one multiplier (kl_alternative),
// and certified by the linear program those alternatives cut: every
// alternative gives a linear constraint a . x >= 1 that C* must meet, so
// any y >= 0 with sum_j y_j a_j <= cost is a lower bound sum_j y_j. The
// solve stops once the returned (feasible) value is within `gap_share` of
// the best such bound: `gap` is the certified share. The Gaussian program
// has its own, faster solver (optimal_allocation); this one serves every
// family with a KL, Gaussian included (where the two agree).
//
// Where the divergence turns concave (the exponential family's KL(mu, .)
// past 2 mu, Divergence::convex_move) the closest alternative is found
// globally (solve_alternative). Polls `stop` every iteration (throwing
// Interrupted).
//
// `tied` as in optimal_allocation: arms treated as optimal beside a client's
// mixed-optimal one, with no variable and no constraint (pulls +inf). An arm
// with a zero gap that is not passed as tied gives +inf, as there.
// `shares`: each constraint's multiplier (summed over its branches and
// pieces) as a share of their sum.
// `newton_steps`: the barrier method's Newton steps.
OptimalAllocation kl_optimal_allocation(const model::MixedModel& mixed,
                                        const families::Divergence& kl, double gap_share = 1e-6,
                                        const StopToken& stop = {},
                                        std::span<const std::uint8_t> tied = {});

}  // namespace pfmab::theory
