#include "pfmab/model/means_table.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/text_file.hpp"

namespace pfmab::model {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

// One row of comma-separated values; `origin` prefixes every message.
std::vector<double> parse_row(std::string_view line, const std::string& origin) {
  std::vector<double> row;
  std::size_t column = 1;
  while (true) {
    const auto comma = line.find(',');
    const auto cell = trim(line.substr(0, comma));
    // from_chars takes no leading '+', which people do write
    const auto digits = cell.starts_with('+') ? cell.substr(1) : cell;
    double value = 0.0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range) {
      throw UserError(
          fmt::format("{}: column {}: '{}' is out of the range of a double", origin, column,
                      excerpt(cell)));
    }
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size()) {
      throw UserError(
          fmt::format("{}: column {}: '{}' is not a number", origin, column, excerpt(cell)));
    }
    if (!std::isfinite(value)) {
      throw UserError(
          fmt::format("{}: column {}: mean '{}' is not finite (means must be real numbers)", origin,
                      column, excerpt(cell)));
    }
    row.push_back(value);
    if (comma == std::string_view::npos) return row;
    line.remove_prefix(comma + 1);
    ++column;
  }
}

void append_row(MeansTable& table, std::vector<double> row, std::string origin) {
  if (!table.rows.empty() && row.size() != table.rows.front().size()) {
    throw UserError(
        fmt::format("{}: has {} values but {} has {} (every client needs one mean per arm)", origin,
                    row.size(), table.row_origin.front(), table.rows.front().size()));
  }
  table.rows.push_back(std::move(row));
  table.row_origin.push_back(std::move(origin));
}

}  // namespace

MeansTable read_means_csv(const std::filesystem::path& path) {
  std::istringstream in(read_text_file(path, "means file", max_means_file_bytes));
  const auto shown = excerpt(path.string(), path_excerpt_chars);
  MeansTable table;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const auto content = trim(line);
    if (content.empty() || content.front() == '#') continue;
    const auto origin = fmt::format("{}:{}", shown, number);
    append_row(table, parse_row(content, origin), origin);
  }
  if (table.rows.empty()) {
    throw UserError(fmt::format(
        "means file '{}' has no data rows (expected one line of comma-separated means per client)",
        shown));
  }
  return table;
}

MeansTable parse_inline_means(std::string_view text) {
  MeansTable table;
  std::size_t number = 1;
  while (true) {
    const auto semicolon = text.find(';');
    const auto origin = fmt::format("--means-inline row {}", number);
    append_row(table, parse_row(trim(text.substr(0, semicolon)), origin), origin);
    if (semicolon == std::string_view::npos) return table;
    text.remove_prefix(semicolon + 1);
    ++number;
  }
}

}  // namespace pfmab::model
