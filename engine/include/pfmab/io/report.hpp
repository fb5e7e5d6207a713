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
#include "pfmab/stats/streaming.hpp"
#include "pfmab/stats/summary.hpp"
#include "pfmab/theory/bounds.hpp"

namespace pfmab::io {

// The final-slot summary of one cell, as `run` and `summary` print it.
struct CellReport {
  std::string algorithm;  // its name
  // What the cell sets of the algorithm's options, for the table: e.g.
  // "authors-code, q=0.5"; empty for none.
  std::string variant;
  nlohmann::json options;  // preset, lengths, algorithm_alpha, participation
  double alpha = 0.0;
  std::size_t clients = 0;
  std::size_t arms = 0;
  std::uint64_t horizon = 0;
  std::string schedule;
  std::string rewards;          // "gaussian" or "bernoulli"
  std::string mode;             // the fidelity, "aggregated" or "per-pull"
  theory::Bounds bounds;        // the paper's theory for the cell
  std::uint64_t requested = 0;  // replications asked for
  stats::Summary regret;        // pseudo-regret at T, over the replications done
  double comm_count_mean = 0.0;
  double phases_mean = 0.0;
  double identified = 0.0;  // fraction of replications
};

// Every field of a cell's report but the statistics, from the cell and the
// values it was made from.
CellReport describe(const sim::Cell& cell, const CellValues& values, std::uint64_t requested);
// The algorithm's name, variant and options, from a cell's values.
void describe_algorithm(CellReport& report, const CellValues& values);

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
};

// The JSON form of a cell's bounds (NaN, where a bound does not apply, is null).
nlohmann::json to_json(const theory::Bounds& bounds);

// {"seed", "digest", "cells": [...]}, the object `run --json` prints.
nlohmann::json to_json(std::uint64_t seed, const std::string& digest,
                       std::span<const CellReport> cells);

// A readable table of the same.
void print_table(std::ostream& out, std::uint64_t seed, const std::string& digest,
                 std::span<const CellReport> cells);

// What `pfmab bounds` prints: each cell's parameters and bounds, as a table
// or as {"cells": [...]}.
nlohmann::json bounds_json(std::span<const CellReport> cells);
void print_bounds_table(std::ostream& out, std::span<const CellReport> cells);

}  // namespace pfmab::io
