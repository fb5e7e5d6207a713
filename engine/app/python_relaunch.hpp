#pragma once

#include <string_view>

// How the pfmab binary runs an algorithm written in Python ("module:Class",
// a pfmab.Algorithm subclass): it cannot import one, so it becomes
// `python3 -m pfmab` with the same arguments (execv), which runs the very
// same program in the Python module with the class imported. Job scripts
// (tools/slurm/array.sbatch) thus need no change. Nothing has been written
// when it does: the algorithm is named while the experiment loads.
namespace pfmab::cli {

// Keeps the program's arguments as it was started with them; the first
// thing main does.
void keep_arguments(int argc, char** argv);

// The resolver of the binary (algorithms::Resolver): re-executes this
// process as PFMAB_PYTHON (default /usr/bin/python3) -m pfmab with the kept
// arguments, the package of this binary's clone first on PYTHONPATH and
// PFMAB_BUILD its build folder, so that the module run is this binary's
// build. Throws UserError if the interpreter cannot be started.
[[noreturn]] void relaunch_under_python(std::string_view name);

}  // namespace pfmab::cli
