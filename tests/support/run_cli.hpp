#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spawn.hpp"

namespace pfmab::testing {

// Runs the real build/pfmab with `args` to completion, capturing stdout and
// stderr.
inline CliResult run_cli(const std::vector<std::string>& args) {
  return Spawned(PFMAB_BINARY, args).wait();
}

// Runs build/pfmab with `args` as a process whose files may not grow past
// `kib` KiB (RLIMIT_FSIZE, set by bash's ulimit before it execs the program,
// with SIGXFSZ at its default, which kills): pfmab ignores the signal itself,
// so a write past the limit fails with EFBIG, as one fails on a full disk,
// without root or a file system to fill.
inline CliResult run_cli_with_file_limit(std::uint64_t kib, const std::vector<std::string>& args) {
  std::vector<std::string> all{
      "-c", "ulimit -f " + std::to_string(kib) + " && exec \"$0\" \"$@\"",
      PFMAB_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  return run_program("/bin/bash", all);
}

// `pfmab run` of an experiment given as flags, to `output`, then `extra`.
inline std::vector<std::string> run_to(const std::vector<std::string>& experiment,
                                       const std::filesystem::path& output,
                                       const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"run"};
  args.insert(args.end(), experiment.begin(), experiment.end());
  args.insert(args.end(), {"-o", output.string()});
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The digest a `--json` command printed.
inline std::string printed_digest(const CliResult& r) {
  return nlohmann::json::parse(r.out)["digest"].get<std::string>();
}

#ifdef PFMAB_MPIEXEC
// mpirun's arguments to start `ranks` ranks of build/pfmab `args`:
// oversubscribed, so that any machine has the ranks, and allowed to run as
// root when it is root (as CI is).
inline std::vector<std::string> mpirun_args(const std::vector<std::string>& args, int ranks = 2) {
  std::vector<std::string> all{"--oversubscribe", "-np", std::to_string(ranks)};
  if (::geteuid() == 0) all.push_back("--allow-run-as-root");
  all.push_back(PFMAB_BINARY);
  all.insert(all.end(), args.begin(), args.end());
  return all;
}
#endif

// Path of one of the paper's instances under ../shared/data.
inline std::string shared_data(const std::string& name) {
  return std::string(PFMAB_SHARED_DATA) + "/" + name;
}

}  // namespace pfmab::testing
