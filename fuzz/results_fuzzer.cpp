// The output reader: the input is the bytes of an .h5 file, read as
// `pfmab summary FILE` reads it (io::ResultsReader, then io::read_reports
// over every cell's rows), the way `resume` and `merge` open their inputs.
//
// Passes when reading returns or throws UserError (exit status 2); any
// other exception, a crash, a hang or a sanitizer report is a finding.
#include <cstdint>

#include "pfmab/io/results_file.hpp"
#include "pfmab/util/error.hpp"

#include "sandbox.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = pfmab::fuzz::Sandbox::get().write("out.h5", pfmab::fuzz::text_of(data, size));
  try {
    const pfmab::io::ResultsReader reader(file);
    pfmab::io::read_reports(reader);
  } catch (const pfmab::UserError&) {
  }
  return 0;
}
