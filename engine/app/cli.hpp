#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <tbb/info.h>

#include "pfmab/io/parameters.hpp"
#include "pfmab/run/world.hpp"

namespace pfmab::cli {

// The experiment's flags, one per parameter that has one (io::parameters()),
// kept as text until parsed as the parameter's values: each one given
// replaces the file's value.
struct ExperimentFlags {
  std::string file;
  struct Given {
    const io::Parameter* parameter;
    CLI::Option* option;
    bool inline_means;  // --means-inline
  };
  std::vector<Given> given;
  std::map<std::string, std::string> texts;  // by flag: CLI11 writes into them
  bool skip_refused = false;                 // --skip-refused
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

// The program's commands (run, validate, bounds, summary, merge, export), whose
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
  std::string export_path_;
  bool export_long_ = false, export_csv_ = true;
  CLI::App *run_, *validate_, *bounds_, *summary_, *merge_, *export_;
};

}  // namespace pfmab::cli
