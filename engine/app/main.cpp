// The pfmab binary: the program (program.hpp), whose algorithms written in
// Python it runs under Python (python_relaunch.hpp).
#include "program.hpp"
#include "python_relaunch.hpp"

int main(int argc, char** argv) {
  pfmab::cli::keep_arguments(argc, argv);
  return pfmab::cli::run_program(argc, argv, &pfmab::cli::relaunch_under_python);
}
