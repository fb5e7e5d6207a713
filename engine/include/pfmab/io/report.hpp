#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/replication.hpp"
#include "pfmab/stats/summary.hpp"

namespace pfmab::io {

// The final-slot summary of one cell, as `run` prints it.
struct CellReport {
  std::string algorithm;
  double alpha = 0.0;
  std::size_t clients = 0;
  std::size_t arms = 0;
  std::uint64_t horizon = 0;
  std::string schedule;
  stats::Summary regret;  // pseudo-regret at T
  double comm_count_mean = 0.0;
  double phases_mean = 0.0;
  double identified = 0.0;  // fraction of replications
};

CellReport report_cell(const sim::Cell& cell, std::span<const sim::ReplicationResult> results);

// {"seed", "digest", "cells": [...]}, the object `run --json` prints.
nlohmann::json to_json(std::uint64_t seed, const std::string& digest,
                       std::span<const CellReport> cells);

// A readable table of the same.
void print_table(std::ostream& out, std::uint64_t seed, const std::string& digest,
                 std::span<const CellReport> cells);

}  // namespace pfmab::io
