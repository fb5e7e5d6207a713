#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "pfmab/model/instance.hpp"
#include "pfmab/theory/bounds.hpp"
#include "pfmab/util/stop_token.hpp"

namespace pfmab::sim {

class Cell;
struct ReplicationResult;

// How an algorithm talks to the engine (docs/algorithms.md, "The algorithm
// interface"), which decides what a fidelity mode may do with it.
enum class Protocol {
  // Phases: the server plans each client's runs of pulls, the clients report
  // to the server, the server broadcasts back (run_phased, sim/phased.hpp).
  // The rewards of a run are read only through each arm's sum, so the
  // aggregated mode draws each sum at once.
  phased,
  // Every pull chosen from every reward so far (sim/slot_by_slot.hpp): every
  // reward drawn, whatever the mode.
  slot_by_slot,
};

// What an algorithm is configured for besides its own options.
struct CellContext {
  const model::Instance& instance;
  double alpha;  // the weight the algorithm runs with (the measured one unless mis-specified)
  std::uint64_t horizon;
};

// An algorithm configured for one cell: its options checked and everything
// derived from them, shared read-only by the cell's replications (on any
// thread). Each algorithm is one file under engine/src/algorithms/,
// registered in registry.cpp.
class Algorithm {
 public:
  virtual ~Algorithm() = default;

  virtual std::string_view name() const = 0;  // "pf-ucb", ...
  virtual Protocol protocol() const = 0;
  // Runs replication `replication` of `cell` through the engine (run_phased,
  // play_apart or play_together), every draw from streams keyed by (seed,
  // cell, replication, client). Blocks until done; throws Interrupted once
  // `stop` is requested.
  virtual ReplicationResult replicate(const Cell& cell, std::uint64_t seed,
                                      std::uint64_t replication, const StopToken& stop) const = 0;
  // Why it cannot run on `rewards`, as the end of "NAME: ..." (for a
  // baseline whose bonus reads ucb_scale: "its bonus assumes sub-Gaussian
  // rewards; poisson rewards are not"), or empty if it can: a cell refuses
  // it such a family (sim::Cell). refuses_unless_subgaussian words the
  // common case.
  virtual std::string refuses(const families::RewardFamily& /*rewards*/) const { return {}; }
  // The phase lengths f(p) as the report prints them; "none" without phases.
  virtual std::string schedule() const { return "none"; }
  // The processor time the algorithm's own work adds to one replication of
  // `cell`, estimated before the run, in sim::replication_cost's unit
  // (nanoseconds of one core of the machine of bench/README.md): what the
  // engine's cost model cannot know of the algorithm (pf-alloc's solve of
  // an allocation every phase, kl-UCB's index solves, Thompson sampling's
  // posterior draws). The progress display starts from it and corrects it
  // by the times it measures.
  virtual double planning_cost(const Cell&) const { return 0.0; }
  // Whether sim::replication_cost models the algorithm's work at all: not
  // for one whose every call is code the engine cannot see (a Python
  // class's policy), whose estimate is then only the engine's share of it
  // and whose cost the progress display learns from its replications alone.
  virtual bool cost_modelled() const { return true; }
  // The paper's bounds for the cell: Theorem 1 and Corollary 1 for its game;
  // Theorem 2 only where it bounds this algorithm (else NaN, with why).
  // C* is the game's in the run's `games`; polls `stop` (see
  // theory::compute_bounds).
  virtual theory::Bounds bounds(const Cell& cell, theory::Games& games,
                                const StopToken& stop = {}) const;
};

// Algorithm::refuses for an algorithm whose `what` ("its bonus") reads the
// family's subgaussian_sigma or ucb_scale: why, or empty for a sub-Gaussian
// family.
std::string refuses_unless_subgaussian(std::string_view what,
                                       const families::RewardFamily& rewards);

// How a cell's algorithm is made once the cell is known: the experiment
// loader's from an entry of the registry and the cell's option values,
// tests' from an algorithm's typed options (algorithms::pf_ucb(params), ...).
// Throws UserError for options the algorithm refuses.
using AlgorithmChoice = std::function<std::shared_ptr<const Algorithm>(const CellContext&)>;

}  // namespace pfmab::sim
