#pragma once

#include <cstddef>
#include <string_view>

namespace pfmab::io {

// Limits on an experiment file, checked on its text before toml++ parses
// it. toml++ recurses once per level of a dotted key or table header (a key
// of 50,000 parts overflows the stack), and a value of megabytes is no
// experiment's; each limit is far above what a real experiment needs.
//
// - The file: at most 16 MiB (an experiment with an inline matrix of
//   10^5 means is under 3 MB).
// - Nesting: every value at most 32 levels deep, counting each part of a
//   table header ([a.b] is 2), each part of a dotted key, each list and each
//   inline table around it. The deepest value of the format, an element of a
//   list of matrices (instance.means = [[[...]]]), is 5 deep.
// - Strings: at most 64 KiB each (names, descriptions, CSV paths).
// - Keys: at most 1 KiB as written, quotes and dots included (the longest
//   known key, algorithm.confidence_constant, is 29 bytes).
//
// Lines are not limited: a matrix may be written on one line.
inline constexpr std::size_t max_experiment_bytes = std::size_t{16} << 20;
inline constexpr std::size_t max_toml_depth = 32;
inline constexpr std::size_t max_toml_string_bytes = std::size_t{64} << 10;
inline constexpr std::size_t max_toml_key_bytes = 1024;

// Scans `text` (the file's contents, not yet parsed) and throws UserError
// "FILE:LINE:COL: key 'K': ..." at the first value nested too deep, string
// or key too long, FILE being `shown_file` (the file's name as messages show
// it). Text that is not valid TOML is left for toml++ to report.
void check_toml_limits(std::string_view text, std::string_view shown_file);

}  // namespace pfmab::io
