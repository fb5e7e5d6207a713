#pragma once

#include <string>
#include <vector>

#include "spawn.hpp"

namespace pfmab::testing {

// Runs the real build/pfmab with `args` to completion, capturing stdout and
// stderr.
inline CliResult run_cli(const std::vector<std::string>& args) {
  return Spawned(PFMAB_BINARY, args).wait();
}

// Path of one of the paper's instances under ../shared/data.
inline std::string shared_data(const std::string& name) {
  return std::string(PFMAB_SHARED_DATA) + "/" + name;
}

}  // namespace pfmab::testing
