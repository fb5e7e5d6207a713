#include "pfmab/util/parse.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"

namespace pfmab {

std::uint64_t parse_count(std::string_view text, std::string_view what) {
  constexpr double limit = 0x1p62;
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() ||
      !(value >= 0.0 && value <= limit) || std::floor(value) != value) {
    throw UserError(fmt::format(
        "{} '{}' is not a whole number from 0 to 2^62 (write e.g. 1000000 or 1e6)", what,
        excerpt(text)));
  }
  // Integers above 2^53 lose digits as doubles; read those exactly.
  std::uint64_t exact = 0;
  const auto [iend, iec] = std::from_chars(text.data(), text.data() + text.size(), exact);
  if (iec == std::errc{} && iend == text.data() + text.size()) return exact;
  return static_cast<std::uint64_t>(value);
}

double parse_real(std::string_view text, std::string_view what) {
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || (ec != std::errc{} && ec != std::errc::result_out_of_range) ||
      end != text.data() + text.size()) {
    throw UserError(fmt::format("{} '{}' is not a number", what, excerpt(text)));
  }
  // from_chars leaves an out-of-range value unset; strtod gives it as
  // infinity or 0, for the caller's range check to judge (1e999 is above
  // every range).
  if (ec == std::errc::result_out_of_range) return std::strtod(std::string(text).c_str(), nullptr);
  return value;
}

}  // namespace pfmab
