#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "pfmab/families/divergence.hpp"

namespace pfmab::theory {

// One constraint (k, m) of the KL program (docs/allocation.md, "Other reward
// families: the KL program") and its closest alternative: the means of arm k
// moved up at the clients that pay to explore it, those of client m's best
// arm moved down at the clients that pay to explore that one, until arm k's
// mixed mean at m reaches the best arm's, at the least information
// sum_n x_n KL(mu_n, lambda_n).
struct KlConstraint {
  // A local mean the alternative may move, and how far it moved at the last
  // solve.
  struct Term {
    std::uint32_t variable;  // the pulls x_n it costs
    double mean;             // mu_n
    double weight;           // w_{n,m}: how much a move of it moves arm k's lead at m
    double direction;        // +1 (arm k, up) or -1 (the best arm, down)
    double reach;            // the largest move the family's range allows
    double convex_reach;     // the largest over which its KL is convex (reach, or less)

    double move = 0.0;        // delta_n = |lambda_n - mu_n|
    double divergence = 0.0;  // KL(mu_n, lambda_n): the cut's coefficient of x_n
    double slope = 0.0;       // d KL / d delta at the move
    double curvature = 0.0;   // d^2 KL / d delta^2 at the move
    bool at_reach = false;    // stopped by the range, not by the slope condition
  };

  static constexpr std::uint32_t kConvex = std::numeric_limits<std::uint32_t>::max();

  std::uint32_t client = 0, arm = 0;
  double gap = 0.0;  // D'_{k,m}: the lead the moves must close
  std::vector<Term> terms;
  // Which alternatives it ranges over (branches()): kConvex, every move
  // within its convex stretch (for a convex family, every alternative); or
  // a term whose move is in its concave stretch, every other's convex.
  std::uint32_t concave = kConvex;
  // That term's move if held there, a piece of the branch (NaN: searched
  // over its concave stretch).
  double held = std::numeric_limits<double>::quiet_NaN();

  double multiplier = 0.0;           // eta, the price of the lead at the last solve
  double value = 0.0;                // F(x), the least information of an alternative
  std::vector<double> below, above;  // the moves at the multiplier's bracket (scratch)
};

// Adds to `constraint` (its gap set) the term of the local mean `mean`,
// whose pulls are variable `variable`, moved in `direction` with weight
// `weight`, unless it cannot move: at the family's range's end in that
// direction, or a law no other mean's law can produce (the exponential law
// of mean 0). Returns the largest lead its move can close, weight times its
// reach; 0 if it was not added. The KL program's constraints and pf-alloc's
// likelihood-ratio test of a mixed-mean comparison are built of these.
double add_term(const families::Divergence& kl, KlConstraint& constraint, std::uint32_t variable,
                double mean, double weight, double direction);

// A constraint (its terms added) as the constraints of its branches, whose
// least is its own inner problem's (kl_alternative.cpp proves it): every
// move within its convex stretch, if they can close the gap so; and for
// each term that can reach its concave stretch (the exponential KL past 2
// mu), that move in it with every other within its convex stretch. Each
// branch is concave and 1-homogeneous in x; the convex one is smooth, a
// concave one not everywhere (its least jumps between local minima as x
// moves), which the KL program meets with pieces (kl_allocation.cpp). A
// convex family's constraint is its only branch.
std::vector<KlConstraint> branches(KlConstraint constraint);

// Solves the constraint's branch at the pulls x: min sum_n x_n KL(mu_n, mu_n
// + direction_n delta_n) with sum_n w_n delta_n = gap, over the branch's
// moves. Every move convex: by its one multiplier eta (x_n KL'_n(delta_n) =
// eta w_n for every term inside its range; a monotone root in eta, each
// delta_n a monotone root of the slope). A move in its concave stretch: by a
// branch and bound over it, the others by their multiplier. Sets every
// term's move and divergence, the multiplier and value.
void solve_alternative(const families::Divergence& kl, std::span<const double> x,
                       KlConstraint& constraint);

}  // namespace pfmab::theory
