#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pfmab/io/parameters.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/shard.hpp"

namespace pfmab::io {

// A cell of the sweep that its own combination of values refuses (an
// algorithm that refuses the reward family, a family that refuses the
// means, ...): each of its values is valid, the cell is not.
struct RefusedCell {
  nlohmann::json record;  // its values, as a cell's record holds them (CellValues::to_json)
  std::string name;       // the values that tell it from the sweep's other cells
  std::string why;

  nlohmann::json to_json() const;  // {"cell": record, "name": name, "why": why}
  static RefusedCell from_json(const nlohmann::json& json);
};

// The refused cells a run skipped, as the last lines of its table ("" for
// none), and as its JSON report's "refused" (none: no such field).
std::string refused_lines(std::span<const RefusedCell> refused);
void add_refused(nlohmann::json& report, std::span<const RefusedCell> refused);

// A validated experiment, built once: the cells of its sweep, each with the
// values it was made from (its replications among them), and the master
// seed. The sweep is the cartesian product of every list-valued parameter,
// in parameters() order, but for the lists a `zip` pairs, which advance
// together; a file's [[sweep]] blocks are such products each, one after the
// other. A key that has no effect on a cell is not crossed with it: each
// cell is made once (docs/experiment.md).
struct Experiment {
  std::string source;  // the experiment file, or "command line"
  std::string text;    // the file's text and any command-line overrides
  // The files it was read from (the experiment file, the means CSVs): no
  // output of the run may be one of them.
  std::vector<std::filesystem::path> files;
  std::uint64_t seed = 1;
  std::vector<CellValues> values;  // what each cell is, parameter by parameter
  std::vector<sim::Cell> cells;    // the same, validated, with what follows from it
  // What validate says of the sweep's shape: keys not crossed with an
  // algorithm that has no use for them, combinations not made twice.
  std::vector<std::string> notes;
  // The cells of the sweep it refuses, which a run skips (skip_refused) and
  // records (in `canonical`, so in the output too); the others keep the
  // positions they have without them.
  std::vector<RefusedCell> refused;

  std::uint64_t replications(std::size_t cell) const { return values[cell].whole("replications"); }
  std::vector<std::uint64_t> replications_per_cell() const;
  std::uint64_t total_replications() const;
  // Each cell's share of `shard` (sim::shard_ranges).
  std::vector<sim::ReplicationRange> ranges_of(const sim::Shard& shard) const;
  // Everything that determines the results, resolved (means as numbers, not
  // paths): two experiments give the same results exactly when it is equal.
  nlohmann::json canonical;
};

// A parameter's values given on the command line, laid over the file's.
struct FlagValues {
  const Parameter* parameter = nullptr;
  std::string flag;  // as given, e.g. "--alpha"
  std::vector<Value> values;
};

// Reads a flag's text as values of `parameter`: a comma-separated list
// where it sweeps; for means, a CSV path relative to the working directory,
// or with `inline_means` rows separated by ';' and values by ','. Checks
// each value as the file's would be. Throws UserError
// "FLAG (key 'K'): ...".
FlagValues parse_flag(const Parameter& parameter, std::string_view flag, std::string_view text,
                      bool inline_means = false);

// The same for `key`, named by its flag (for programs that build an
// experiment as the command line would, e.g. the benchmarks).
FlagValues flag_values(std::string_view key, std::string_view text);

// Loads `file` (if any) with `overrides` laid over it. Relative CSV paths in
// the file are relative to the file. Throws UserError naming the file, line,
// column and key (or the flag) of the first problem found, and one naming
// every cell the sweep refuses (RefusedCell) unless the file says
// `skip_refused = true` or `skip_refused` is true (--skip-refused); then a
// sweep that refuses every cell.
Experiment load_experiment(const std::optional<std::filesystem::path>& file,
                           const std::vector<FlagValues>& overrides = {},
                           bool skip_refused = false);
// The same for an experiment file's text (a program's, e.g. the Python
// package's), named `name` in messages and as its source, its CSV paths
// relative to `directory`.
Experiment load_experiment_text(std::string text, const std::string& name,
                                const std::filesystem::path& directory,
                                const std::vector<FlagValues>& overrides = {},
                                bool skip_refused = false);

}  // namespace pfmab::io
