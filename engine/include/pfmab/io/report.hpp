#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pfmab/io/parameters.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/replication.hpp"
#include "pfmab/sim/time_used.hpp"
#include "pfmab/stats/streaming.hpp"
#include "pfmab/stats/summary.hpp"
#include "pfmab/theory/bounds.hpp"
#include "pfmab/util/stop_token.hpp"

namespace pfmab::io {

// One key of a cell: a parameter by its record name (the means as
// `instance`, its path as given; summaries show it by instance_names()), its
// value, null where it has no effect on the cell (its algorithm has no use
// for it).
struct CellKey {
  std::string name;
  nlohmann::json value;
  bool at_default = false;  // the value a cell that does not give it has
  // at_default, and that value is derived from the cell's others (the
  // algorithm's alpha is alpha): not a value of its own
  bool derived = false;
};

// The final-slot summary of one cell, as `run` and `summary` print it.
struct CellReport {
  std::string algorithm;      // its name
  std::vector<CellKey> keys;  // what the cell is: every key, in parameters() order
  double alpha = 0.0;
  std::size_t clients = 0;
  std::size_t arms = 0;
  std::uint64_t horizon = 0;
  std::string schedule;         // f(p), "none" for an algorithm without one
  std::string rewards;          // "gaussian" or "bernoulli"
  std::string mode;             // the fidelity its rewards were drawn with
  double comm_cost = 0.0;       // C: the regret an exchange costs
  theory::Bounds bounds;        // the paper's theory for the cell
  std::uint64_t requested = 0;  // replications asked for
  stats::Summary regret;        // pseudo-regret at T, over the replications done
  double comm_count_mean = 0.0;
  double phases_mean = 0.0;
  double identified = 0.0;  // fraction of replications
  // What computing the replications took: it varies from run to run, so it
  // is in no digest (nothing measured: replications 0).
  sim::TimeUsed used;

  // The share of the mean regret that is communication: C times the mean
  // exchanges over the mean regret (which counts C per exchange,
  // sim::Trajectory); 0 for a cell that never exchanges.
  double comm_share() const;
};

// Every field of a cell's report but the statistics, from the cell and the
// values it was made from; its C* is its game's in `games`. Polls `stop`
// (the bounds may take a C* solve).
CellReport describe(const sim::Cell& cell, const CellValues& values, std::uint64_t requested,
                    theory::Games& games, const StopToken& stop = {});
// A cell's keys, from its values; `mode` as its rewards were drawn (a
// baseline draws every reward).
std::vector<CellKey> cell_keys(const CellValues& values, const std::string& mode);
// The names of the keys that take more than one value over `cells`, in
// parameters() order: the sweep's, as the output records them. A cell on
// which a key has no effect, or holds what it derives, gives it no value.
std::vector<std::string> varied_keys(std::span<const CellReport> cells);

// The name every summary, export and the Python package give each instance
// of `given` (the means' paths as given, one per cell): the file's name
// without folder and extension (synthetic_4x9; inline means are "inline");
// where two different paths share that name, each of them as given.
// python/pfmab/plot.py's instance_names() follows the same rule (the plot
// tool reads outputs without the engine); tests/tools/test_plot.py checks
// that they agree.
std::vector<std::string> instance_names(std::span<const std::string> given);
// Every cell's keys as summaries show them: the instance named by
// instance_names() over all of `cells`.
std::vector<std::vector<CellKey>> shown_keys(std::span<const CellReport> cells);

// Builds a CellReport one replication at a time, in replication order.
class CellAccumulator {
 public:
  // `description`: every field but the statistics.
  explicit CellAccumulator(CellReport description) : report_(std::move(description)) {}
  void add(const sim::ReplicationResult& result);
  CellReport report() const;

 private:
  CellReport report_;
  stats::RunningMoments final_regret_{1};  // memory independent of the replications
  double comm_ = 0.0, phases_ = 0.0, identified_ = 0.0;
  sim::TimeUsed used_;
};

// The JSON form of a cell's bounds (NaN, where a bound does not apply, is null).
nlohmann::json to_json(const theory::Bounds& bounds);

// {"seed", "digest", "varied": [key, ...], "cells": [...]}, the object
// `run --json` prints; each cell's "keys" are every key of it (shown_keys).
// Every field of a cell but "keys" is also a column of `pfmab export`.
nlohmann::json to_json(std::uint64_t seed, const std::string& digest,
                       std::span<const CellReport> cells);

// A readable table of the same: the keys that vary as columns, the others
// once above it (those at their defaults only if every summary shows them:
// instance, algorithm, alpha, T, C, schedule, mode).
void print_table(std::ostream& out, std::uint64_t seed, const std::string& digest,
                 std::span<const CellReport> cells);

// What `pfmab bounds` prints: each cell's keys and bounds, as a table (laid
// out as print_table's) or as {"varied", "cells": [...]}.
nlohmann::json bounds_json(std::span<const CellReport> cells);
void print_bounds_table(std::ostream& out, std::span<const CellReport> cells);

}  // namespace pfmab::io
