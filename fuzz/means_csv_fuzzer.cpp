// The means CSV reader: the input is the text of a means file, read as
// `--means FILE.csv` reads it (model::read_means_csv) and as the value of
// `--means-inline` (model::parse_inline_means), then made an instance of
// each registered reward family at its default parameters (each checks the
// means against its own range: Bernoulli [0, 1], exponential (0, 1e9], ...).
//
// Passes when each step returns or throws UserError (exit status 2); any
// other exception, a crash, a hang or a sanitizer report is a finding.
#include <cstdint>

#include "pfmab/families/family.hpp"
#include "pfmab/model/instance.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/util/error.hpp"

#include "sandbox.hpp"

namespace {

void make_instances(const pfmab::model::MeansTable& table) {
  for (const auto* family : pfmab::families::all_families()) {
    try {
      const pfmab::model::Instance instance(table, pfmab::families::RewardFamily(family->name()));
    } catch (const pfmab::UserError&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = pfmab::fuzz::text_of(data, size);
  try {
    make_instances(
        pfmab::model::read_means_csv(pfmab::fuzz::Sandbox::get().write("means.csv", text)));
  } catch (const pfmab::UserError&) {
  }
  try {
    make_instances(pfmab::model::parse_inline_means(text));
  } catch (const pfmab::UserError&) {
  }
  return 0;
}
