#include "python_relaunch.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"

namespace pfmab::cli {
namespace {

std::vector<std::string> kept;

}  // namespace

void keep_arguments(int argc, char** argv) { kept.assign(argv, argv + argc); }

void relaunch_under_python(std::string_view name) {
  // A build without the module (the sanitizer presets) has no engine for
  // the package to run the class on: Python would only say so less clearly.
  if (!PFMAB_PYTHON_MODULE_BUILT) {
    throw UserError(fmt::format(
        "algorithm '{}' is a Python class, which this pfmab, built without the Python package's "
        "engine module (PFMAB_PYTHON_MODULE off), cannot run: use a build with it, such as the "
        "release preset's (docs/python.md)",
        excerpt(name)));
  }
  const char* given = std::getenv("PFMAB_PYTHON");
  const std::string python = given && *given ? given : "/usr/bin/python3";
  // This clone's package and this binary's build: the module of another
  // would run another version (python/pfmab/_engine.py refuses a mismatch).
  const std::string package = PFMAB_SOURCE_DIR "/python";
  const char* path = std::getenv("PYTHONPATH");
  const auto python_path = path && *path ? package + ":" + path : package;
  std::error_code failed;
  const auto binary = std::filesystem::read_symlink("/proc/self/exe", failed);
  if (failed || setenv("PYTHONPATH", python_path.c_str(), 1) != 0 ||
      setenv("PFMAB_BUILD", binary.parent_path().c_str(), 1) != 0) {
    throw SystemError(
        fmt::format("cannot prepare the environment of {} to run '{}'", python, excerpt(name)));
  }
  std::vector<std::string> arguments{python, "-m", "pfmab"};
  arguments.insert(arguments.end(), kept.begin() + (kept.empty() ? 0 : 1), kept.end());
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  execv(python.c_str(), argv.data());
  throw UserError(fmt::format(
      "algorithm '{}' is a Python class, which the command line runs under Python: {} cannot be "
      "started ({}); set PFMAB_PYTHON to an interpreter, or run python3 -m pfmab with the same "
      "arguments",
      excerpt(name), python, std::strerror(errno)));
}

}  // namespace pfmab::cli
