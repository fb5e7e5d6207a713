// The cost model of a replication. Each constant is a least-squares fit
// (of relative error) to processor time per replication on one thread,
// measured as the difference between runs of R and 3R replications of one
// cell on the synthetic 4x9 game, MovieLens 10x40, the study's 20x10 game
// and random 2x100, 4x2, 50x5 and 100x20 games:
//   * pf-ucb, aggregated, T = 10^4 to 10^8, alpha = 0, 0.5, 1: within -24%
//     and +29% of the times measured;
//   * local-ucb and centralized-ucb (slot by slot), refitted at commit
//     76cf5ed on 2026-11-26 at T = 10^5, alpha 0.5 (load 5 to 7 on the 2-core
//     machine; tests/integration/data/slot_costs.py and its data beside it):
//     local-ucb within -30% (50x5) and +34% (2x100); centralized-ucb within
//     -14% but on 2x100 and 100x20 (-60%): it refreshes every client's
//     estimates of each arm pulled in a slot, so the more different arms the
//     clients pull, the more a slot costs (on the study's 20x10 game, 0.66
//     of the estimate at alpha = 0, 1.2 at alpha >= 0.5, at e8d01cb). A
//     model of the protocol, not of each algorithm. (The fit of e8d01cb,
//     10.4 + 1.0 K ns per client and slot, put these times at 0.3 to 0.7 of
//     what they are now, and weighed the study's 20x10 game at 0.65 of
//     MovieLens per unit of its cost: with pf-alloc's cells now cheap, the
//     study's ETA came out 0.68 of the time left a tenth in, in
//     tests/integration/progress_eta_test.cpp.);
//   * pf-ucb per pull: 2 ns per client and slot is typical, not close (see
//     per_client_slot_drawn).
// An algorithm's own work beyond the protocol's (pf-alloc's solves, kl-UCB's
// indices, Thompson sampling's draws) is its own estimate
// (sim::Algorithm::planning_cost). io::ProgressTracker corrects what the
// model misses with the times of the run itself.

#include "pfmab/sim/cost.hpp"

#include <algorithm>
#include <cmath>

namespace pfmab::sim {
namespace {

// The terms, in nanoseconds. A replication's own work whatever the
// algorithm: its state made, its results handed on in order and added to
// the report.
constexpr double per_replication = 700.0;
// The series: every client's pull counts of every arm at every checkpoint
// (60 by default), turned into regret and rewards. It dominates a short
// PF-UCB replication of many clients and arms: on 100x20 at T = 10^4, 226 us
// with the default 60 checkpoints, 62 us with 10.
constexpr double per_count_checkpoint = 1.7;
// A phase of a phased algorithm: each client's exploration, report and
// elimination are tasks of their own, and scan the client's arms.
constexpr double per_client_phase = 140.0;
constexpr double per_client_arm_phase = 10.5;
// Per pull, a phased algorithm draws only its exploration's rewards, a
// share of the M T pulls that depends on how soon the game is solved: from
// 0.14 ns per client and slot on an easy 4x2 game to 2.8 on the hard
// synthetic game at alpha = 0 (3 ns per reward drawn); 2 is typical of
// MovieLens and the 20x10 game.
constexpr double per_client_slot_drawn = 2.0;
// Slot by slot, every client draws a reward and chooses among the K arms
// (a vectorised argmax) every slot: 26.4 + 1.2 K ns per client and slot.
constexpr double per_client_slot = 26.4;
constexpr double per_client_slot_arm = 1.2;

// The phases of PF-UCB's default schedule f(p) = 2^p log T in T slots when
// no arm is eliminated: phase p takes about K f(p) ((1 - alpha) + M alpha)
// slots (every arm explored (1 - alpha) f(p) times for the global estimate,
// M alpha f(p) times for the local one), so the phases whose lengths add up
// to T number log2(T / (K log T ((1 - alpha) + M alpha))). Elimination
// lengthens the late phases and identification ends them early; both move
// the count by a few phases. Every other phased algorithm (another
// schedule, explore-then-commit's single phase, pf-ucb-enhanced's gap
// estimates at 4 to 6 times PF-UCB's cost) is left to the times measured.
double doubling_phases(double clients, double arms, double horizon, double alpha) {
  const double phase_slots =
      arms * std::max(std::log(horizon), 1.0) * ((1.0 - alpha) + clients * alpha);
  return std::max(1.0, std::log2(horizon / phase_slots));
}

}  // namespace

double replication_cost(const Cell& cell) {
  const auto clients = static_cast<double>(cell.instance().clients());
  const auto arms = static_cast<double>(cell.instance().arms());
  const auto horizon = static_cast<double>(cell.horizon());
  const auto checkpoints = static_cast<double>(cell.checkpoints().size());
  const double common = per_replication + per_count_checkpoint * clients * arms * checkpoints;
  if (cell.algorithm().protocol() == Protocol::slot_by_slot) {
    return common + clients * horizon * (per_client_slot + per_client_slot_arm * arms) +
           cell.algorithm().planning_cost(cell);
  }
  const double phases = doubling_phases(clients, arms, horizon, cell.algorithm_alpha());
  const double drawn =
      cell.drawn_fidelity() == Fidelity::per_pull ? per_client_slot_drawn * clients * horizon : 0.0;
  return common + phases * clients * (per_client_phase + per_client_arm_phase * arms) + drawn +
         cell.algorithm().planning_cost(cell);
}

}  // namespace pfmab::sim
