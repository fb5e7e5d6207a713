// The experiment parser: the input is the text of an experiment file,
// loaded as `pfmab run FILE` and `pfmab validate FILE` load it
// (io::load_experiment: the limits, toml++, every key and value, the means
// CSV files it names, every cell's combined checks).
//
// Passes when loading returns or throws UserError (exit status 2); any
// other exception, a crash, a hang or a sanitizer report is a finding.
//
// The file sits in a sandbox beside means.csv (2 clients, 3 arms), which
// the input may name; a CSV path is read relative to the file. So that no
// input reads the host's files (a FIFO or /dev/stdin would block for ever),
// inputs that could hold a '/' -- raw, or escaped in a TOML string as
// \u002f or \U0000002f -- are skipped: every path then names a file of the
// sandbox, the sandbox itself ("", ".") or its parent ("..").
#include <cstdint>
#include <string_view>

#include "pfmab/io/experiment.hpp"
#include "pfmab/util/error.hpp"

#include "sandbox.hpp"

namespace {

bool could_name_a_path_outside(std::string_view text) {
  return text.find('/') != std::string_view::npos || text.find("2f") != std::string_view::npos ||
         text.find("2F") != std::string_view::npos;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  pfmab::fuzz::Sandbox::get().write("means.csv",
                                    "# two clients, three arms\n0.1,0.5,0.9\n0.8,0.2,0.4\n");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = pfmab::fuzz::text_of(data, size);
  if (could_name_a_path_outside(text)) return -1;  // -1: not added to the corpus
  const auto file = pfmab::fuzz::Sandbox::get().write("exp.toml", text);
  try {
    pfmab::io::load_experiment(file);
  } catch (const pfmab::UserError&) {
  }
  return 0;
}
