#pragma once

#include "pfmab/algorithms/registry.hpp"

namespace pfmab::cli {

// The program: the command line `argv` parsed into one of its commands
// (cli.hpp) and run in the world this process was started in, its error
// printed once for the job; returns the exit status. Both the pfmab binary
// (main.cpp) and `python3 -m pfmab` (the Python module, python/src/module.cpp)
// run it. `python_classes` is how this process finds an algorithm named
// "module:Class" (algorithms::Resolver): the binary re-executes itself under
// Python, the module imports the class. Under an MPI launcher such a name is
// refused: each rank would run its own interpreter, which a job array does
// better (docs/cluster.md).
int run_program(int argc, char** argv, algorithms::Resolver python_classes);

}  // namespace pfmab::cli
