#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <tbb/info.h>

#include "pfmab/run/world.hpp"

namespace pfmab::cli {

// The experiment's flags: each one given replaces the file's value.
struct ExperimentFlags {
  std::string file;
  std::string means_file, means_inline, horizon, replications, rewards, schedule, log_term, mode,
      lengths, participants, aggregate;
  std::vector<std::string> algorithms, presets;
  std::vector<double> alphas;
  std::uint64_t seed = 0;
  double sigma = 0, comm_cost = 0, lambda = 0, schedule_factor = 0, confidence_constant = 0,
         algorithm_alpha = 0, participation = 0;
  std::vector<std::pair<std::string, CLI::Option*>> given;  // TOML key, flag
};

struct RunFlags {
  ExperimentFlags experiment;
  std::string output, shard;
  bool overwrite = false;
  // the cores this process may use (an MPI rank's or a Slurm job's share)
  unsigned threads = static_cast<unsigned>(tbb::info::default_concurrency());
  bool json = false;
  bool quiet = false;
};

struct MergeFlags {
  std::vector<std::string> parts;
  std::string output;
  bool partial = false, overwrite = false, json = false;
};

// The program's commands (run, validate, bounds, summary, merge), whose
// flags it adds to an App; once that has parsed the command line, runs the
// one given. (CLI11 writes the flags' values into this object: it stays
// where it was made.)
class Commands {
 public:
  explicit Commands(CLI::App& app);
  Commands(const Commands&) = delete;
  Commands& operator=(const Commands&) = delete;

  // Runs the command parsed on every rank of `world` (run) or on its leader
  // (the others); returns the exit status. Throws UserError (exit status 2),
  // SystemError (1), ReportedElsewhere, or anything else for an internal
  // error (1).
  int execute(run::World& world) const;

 private:
  RunFlags run_flags_;
  ExperimentFlags validate_flags_, bounds_flags_;
  bool bounds_json_ = false;
  std::string summary_path_;
  bool summary_json_ = false;
  MergeFlags merge_flags_;
  CLI::App *run_, *validate_, *bounds_, *summary_, *merge_;
};

}  // namespace pfmab::cli
