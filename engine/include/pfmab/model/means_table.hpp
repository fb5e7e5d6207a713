#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace pfmab::model {

// Local means as written by the user: one row per client, one column per
// arm, with where each row came from so that errors can point at it.
struct MeansTable {
  std::vector<std::vector<double>> rows;
  std::vector<std::string> row_origin;  // "FILE:LINE" or "--means-inline row R"
};

// The largest means file read: 16 MiB, some 10^6 means, far more clients
// and arms than a simulation of them could run.
inline constexpr std::size_t max_means_file_bytes = std::size_t{16} << 20;

// Reads a CSV file: '#' starts a comment line, blank lines are skipped, every
// other line is one client's comma-separated means. Throws UserError naming
// the file and line for a missing, unreadable or too large file, no data
// rows, a non-numeric or non-finite value, or rows of different lengths.
MeansTable read_means_csv(const std::filesystem::path& path);

// Parses means given inline: rows separated by ';', values by ','.
MeansTable parse_inline_means(std::string_view text);

}  // namespace pfmab::model
