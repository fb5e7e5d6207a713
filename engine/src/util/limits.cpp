#include "pfmab/util/limits.hpp"

#include <oneapi/tbb/info.h>

#include <fmt/format.h>

#include "pfmab/util/error.hpp"

namespace pfmab::limits {

void check(double value, std::string_view what, const RealRange& range) {
  const bool above_low = range.low_open ? value > range.low : value >= range.low;
  if (above_low && value <= range.high) return;  // false for NaN
  throw UserError(fmt::format("{} = {} is outside {}{:g}, {:g}] ({})", what, value,
                              range.low_open ? "(" : "[", range.low, range.high, range.why));
}

unsigned max_threads() {
  return threads_per_core * static_cast<unsigned>(tbb::info::default_concurrency());
}

}  // namespace pfmab::limits
