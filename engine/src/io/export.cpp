#include "pfmab/io/export.hpp"

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "pfmab/io/report.hpp"

#include "io/cell_summary.hpp"

namespace pfmab::io {
namespace {

// A CSV field: quoted where it holds a comma, a quote or a line break.
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// A number as the shortest text that reads back the same; none for NaN.
std::string number(double value) { return std::isfinite(value) ? fmt::format("{}", value) : ""; }

std::string value_text(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return number(value.get<double>());
  return value.dump();
}

void write_row(std::ostream& out, const std::vector<std::string>& fields) {
  std::string line;
  for (const auto& f : fields) {
    if (!line.empty()) line += ',';
    line += field(f);
  }
  out << line << '\n';
}

}  // namespace

void export_csv(const ResultsReader& file, std::ostream& out, bool long_form) {
  const auto [reports, digest] = read_reports(file);
  if (reports.empty()) return;
  std::vector<std::string> header{"cell"};
  for (const auto& key : reports.front().keys) header.push_back(key.name);
  header.insert(header.end(), {"clients", "arms", "replications", "replications_requested"});
  if (long_form) {
    header.push_back("slot");
    for (const auto* series : CellSummary::kSeries) {
      for (const auto* statistic : CellSummary::kStatistics) {
        header.push_back(fmt::format("{}_{}", series, statistic));
      }
    }
  } else {
    header.insert(header.end(), {"regret_mean", "regret_std", "regret_ci95_low", "regret_ci95_high",
                                 "comm_count_mean", "phases_mean", "identified", "theorem1_lower",
                                 "corollary1_lower", "c_star", "c_star_log_T", "theorem2_upper"});
  }
  write_row(out, header);
  for (std::size_t c = 0; c < reports.size(); ++c) {
    const auto& r = reports[c];
    std::vector<std::string> cell{fmt::to_string(c)};
    for (const auto& key : r.keys) cell.push_back(value_text(key.value));
    cell.insert(cell.end(), {fmt::to_string(r.clients), fmt::to_string(r.arms),
                             fmt::to_string(r.regret.count), fmt::to_string(r.requested)});
    if (!long_form) {
      auto row = cell;
      row.insert(row.end(),
                 {number(r.regret.mean), number(r.regret.std), number(r.regret.ci95_low),
                  number(r.regret.ci95_high), number(r.comm_count_mean), number(r.phases_mean),
                  number(r.identified), number(r.bounds.theorem1_lower()),
                  number(r.bounds.corollary1_lower()), number(r.bounds.c_star),
                  number(r.bounds.c_star_log_horizon()), number(r.bounds.theorem2_upper)});
      write_row(out, row);
      continue;
    }
    const auto& stored = file.cells()[c];
    const auto summary = file.summary(c);  // [series][statistic][checkpoint]
    for (std::size_t t = 0; t < stored.checkpoints.size(); ++t) {
      auto row = cell;
      row.push_back(fmt::to_string(stored.checkpoints[t]));
      for (const auto& series : summary) {
        for (const auto& statistic : series) row.push_back(number(statistic[t]));
      }
      write_row(out, row);
    }
  }
}

}  // namespace pfmab::io
