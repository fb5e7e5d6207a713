// The table of bad experiment files that the command line's tests
// (experiment_errors_test.cpp) and the Python package's
// (tests/python/test_errors.py, through write_bad_experiments) check: each
// case an experiment file, the line and key its message must name, and
// further words it must hold.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace pfmab::testing {

struct BadExperiment {
  std::string name;                   // test name suffix: [A-Za-z0-9_]
  std::vector<std::string> lines;     // exp.toml: lines[n - 1] is line n
  int line;                           // the line the message points at; 0: none (file only)
  std::string key;                    // the key the message names, in quotes; "": none
  std::vector<std::string> expected;  // further words of the message
  std::vector<std::pair<std::string, std::string>> files{};  // relative path, text
};

// Just the name: CTest's test names end in "# GetParam() = <this>".
inline void PrintTo(const BadExperiment& c, std::ostream* os) { *os << c.name; }

// Every case, each named uniquely.
std::vector<BadExperiment> bad_experiments();

// Writes case `c` into `dir`: its lines as exp.toml ("{data}" standing for
// the shared data folder), its files beside it. Returns false if a file
// could not be written.
bool write_case(const BadExperiment& c, const std::filesystem::path& dir);

// `text` with every `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to);

}  // namespace pfmab::testing
