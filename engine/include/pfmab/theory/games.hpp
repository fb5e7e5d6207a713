#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "pfmab/model/instance.hpp"
#include "pfmab/model/mixed_model.hpp"
#include "pfmab/util/stop_token.hpp"

namespace pfmab::theory {

// A game's tight constant C* (docs/allocation.md), or why there is none.
struct GameConstant {
  // NaN where it is not computed (note says why). Finite where a client's
  // best arm is tied: arms tied with it count as optimal (exact_ties).
  double c_star = std::numeric_limits<double>::quiet_NaN();
  std::string note;  // why c_star is NaN; empty otherwise
};

// A game's C* is not solved when K L^2, K arms and L distinct best arms
// among its clients, is above this cubed: a Newton step eliminates each arm
// into the best arms' dense block, O(K L^2), then factors it, O(L^3) <=
// O(K L^2), and a solve of a 256 x 256 game with 256 distinct best arms
// takes about 1.2 s of processor time, one of 200 x 5,000 with 200 about
// 16 s (docs/limits.md). The run does not wait for it: C* is reported n/a
// with the reason.
inline constexpr std::size_t kMaxDistinctBestArms = 256;

// The KL program (other families than the Gaussian: kl_optimal_allocation)
// is solved by dense Newton steps over its M (K - 1) pulls, each with every
// constraint's closest alternative found anew: beyond this many pulls a
// solve takes seconds (MovieLens, 390 pulls: 0.5 to 7.5 s), and the run
// does not wait for it.
inline constexpr std::size_t kMaxKlVariables = 128;
// The share of C* to which a KL solve must certify it to be reported.
inline constexpr double kKlGap = 1e-6;

// The distinct games of one run, each solved for C* once and shared by
// every cell and algorithm that asks (cells differing only in algorithm, T,
// C, schedule or replications). A game is what C* depends on: the local
// means, the weight alpha the regret is measured with, and the reward
// family. The run (or the `bounds` command) owns the table and drops it with
// its end: nothing is kept process-wide, so a long Python session holds no
// game of an earlier run. Not thread-safe: the set-up asks from one thread.
class Games {
 public:
  // The index (in order of first appearance) of the game of `instance`
  // measured at `mixed` (whose alpha is the game's), solving its C* the first
  // time it is asked. A solve polls `stop` (throwing Interrupted) and an
  // interrupted one leaves no entry: asked again, the game is solved anew.
  std::size_t add(const model::Instance& instance, const model::MixedModel& mixed,
                  const StopToken& stop = {});

  const GameConstant& operator[](std::size_t game) const { return games_[game]; }
  std::size_t size() const { return games_.size(); }
  // How many times a C* solver ran: one per game within the solvers' limits,
  // whatever the number of cells that asked (tests count it).
  std::size_t solves() const { return solves_; }

 private:
  std::map<std::vector<double>, std::size_t> index_;  // a game's key -> its index
  std::vector<GameConstant> games_;
  std::size_t solves_ = 0;
};

// Row-major client by arm, 1 where an arm other than the client's
// mixed-optimal one has exactly its mixed mean: the arms C* treats as
// optimal (Graves and Lai: the alternatives that matter leave every optimal
// arm's law unchanged, so a tie costs nothing; docs/allocation.md, "Known
// values"), as Theorems 1 and 2 do (theory/bounds.hpp).
std::vector<std::uint8_t> exact_ties(const model::MixedModel& mixed);

// L: how many distinct arms are some client's mixed-optimal arm.
std::size_t distinct_best_arms(const model::MixedModel& mixed);

}  // namespace pfmab::theory
