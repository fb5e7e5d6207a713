// Writes every case of the bad-experiment table (bad_experiments.hpp) into
// DIR/NAME/, for the Python package's tests (tests/python/test_errors.py),
// which check that pfmab.validate and pfmab.run refuse each one with the
// command line's message.
#include <filesystem>
#include <iostream>

#include "bad_experiments.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_bad_experiments DIR\n";
    return 2;
  }
  for (const auto& c : pfmab::testing::bad_experiments()) {
    if (!pfmab::testing::write_case(c, std::filesystem::path(argv[1]) / c.name)) {
      std::cerr << "write_bad_experiments: cannot write case " << c.name << '\n';
      return 1;
    }
  }
  return 0;
}
