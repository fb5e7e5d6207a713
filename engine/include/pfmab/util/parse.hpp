#pragma once

#include <cstdint>
#include <string_view>

namespace pfmab {

// A whole count written as an integer ("1000000") or in scientific notation
// ("1e6"), at most 2^62. Throws UserError naming `what` otherwise.
std::uint64_t parse_count(std::string_view text, std::string_view what);

// A real number written in full ("0.5", "1e-3", "nan": the caller's range
// check refuses what it must). Throws UserError naming `what` otherwise.
double parse_real(std::string_view text, std::string_view what);

}  // namespace pfmab
