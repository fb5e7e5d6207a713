#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "pfmab/sim/cell.hpp"

namespace pfmab::io {

// A validated experiment: the cells of its sweep (the cartesian product of
// every list-valued parameter, in the order of `sweep_keys`), replications
// per cell and the master seed.
struct Experiment {
  std::string source;  // the experiment file, or "command line"
  std::string text;    // the file's text and any command-line overrides
  // The files it was read from (the experiment file, the means CSVs): no
  // output of the run may be one of them.
  std::vector<std::filesystem::path> files;
  std::uint64_t seed = 1;
  std::uint64_t replications = 100;
  std::vector<sim::CellSpec> cells;
  // Everything that determines the results, resolved (means as numbers, not
  // paths): two experiments give the same results exactly when it is equal.
  nlohmann::json canonical;
};

// The keys that may hold a list, outermost first: the order of the cells.
extern const std::vector<std::string> sweep_keys;

// Loads `file` (if any) with `overrides`, a table of the same keys built from
// command-line flags, laid over it; `flags` names the flag of each overridden
// key for error messages. Relative CSV paths in the file are
// relative to the file; in `overrides` they must already be absolute or
// relative to the working directory. Throws UserError naming the file, line,
// column and key of the first problem found.
Experiment load_experiment(const std::optional<std::filesystem::path>& file,
                           const toml::table& overrides,
                           const std::map<std::string, std::string>& flags = {});

}  // namespace pfmab::io
