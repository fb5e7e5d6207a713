#include "io/time_used_layout.hpp"

#include <cmath>
#include <vector>

namespace pfmab::io {
namespace {

constexpr const char* kName = "time_used";

std::vector<double> values_of(const sim::TimeUsed& used) {
  return {used.cpu_seconds, used.wall_seconds, static_cast<double>(used.replications)};
}

}  // namespace

void create_time_used(hid_t group) { h5::write_dataset(group, kName, values_of({}), {3}); }

std::optional<sim::TimeUsed> read_time_used(hid_t group) {
  const htri_t exists = H5Lexists(group, kName, H5P_DEFAULT);
  h5::check(exists, "H5Lexists");
  if (exists == 0) return std::nullopt;
  const h5::Handle set(H5Dopen2(group, kName, H5P_DEFAULT));
  if (h5::dims(set.get()) != std::vector<hsize_t>{3}) return std::nullopt;  // not ours
  const auto values = h5::read_all<double>(set.get());
  // a count is exact in a double up to 2^53 replications; anything else is
  // no count pfmab wrote
  if (!(values[2] >= 0.0 && values[2] <= 0x1p53) || values[2] != std::floor(values[2])) {
    return std::nullopt;
  }
  return sim::TimeUsed{values[0], values[1], static_cast<std::uint64_t>(values[2])};
}

void write_time_used(hid_t group, const sim::TimeUsed& used) {
  const h5::Handle set(H5Dopen2(group, kName, H5P_DEFAULT));
  h5::overwrite(set.get(), values_of(used));
}

}  // namespace pfmab::io
