#include "pfmab/io/export.hpp"

#include <cmath>
#include <map>
#include <span>
#include <string>
#include <utility>
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

using Fields = std::vector<std::pair<std::string, std::string>>;  // (column, text)

// A summary field as columns, as pfmab.Results.summary names them
// (python/pfmab/results.py): nested ones joined by "_" (regret_mean,
// bounds_c_star_log_T), an interval's two ends as _low and _high.
void flatten(const std::string& prefix, const nlohmann::json& value, Fields& out) {
  if (value.is_object()) {
    for (const auto& [name, inner] : value.items()) flatten(prefix + "_" + name, inner, out);
  } else if (value.is_array() && value.size() == 2 && prefix.ends_with("ci95")) {
    out.emplace_back(prefix + "_low", value_text(value[0]));
    out.emplace_back(prefix + "_high", value_text(value[1]));
  } else {
    out.emplace_back(prefix, value_text(value));
  }
}

// The columns of a summary cell (to_json's) past its keys: every field but
// those that repeat a key, `schedule` (the formula f(p); the key is the
// schedule's name) as schedule_formula.
Fields summary_fields(const nlohmann::json& cell) {
  Fields out;
  for (const auto& [name, value] : cell.items()) {
    if (name == "keys") continue;
    if (name == "schedule") {
      flatten("schedule_formula", value, out);
    } else if (!cell["keys"].contains(name)) {
      flatten(name, value, out);
    }
  }
  return out;
}

// Each cell's key columns, as summaries name them (the instance by its name).
std::vector<Fields> key_fields(std::span<const CellReport> reports) {
  std::vector<Fields> out;
  for (const auto& keys : shown_keys(reports)) {
    auto& row = out.emplace_back();
    for (const auto& key : keys) row.emplace_back(key.name, value_text(key.value));
  }
  return out;
}

// The columns of every row in order of first appearance (a note is there
// only in the cells that have one), and each row's text in them.
void write_table(std::ostream& out, const std::vector<Fields>& rows) {
  std::vector<std::string> header;
  std::map<std::string, std::size_t> at;
  for (const auto& row : rows) {
    for (const auto& [column, _] : row) {
      if (at.emplace(column, header.size()).second) header.push_back(column);
    }
  }
  write_row(out, header);
  for (const auto& row : rows) {
    std::vector<std::string> line(header.size());
    for (const auto& [column, text] : row) line[at.at(column)] = text;
    write_row(out, line);
  }
}

}  // namespace

void export_csv(const ResultsReader& file, std::ostream& out, bool long_form) {
  const auto [reports, digest] = read_reports(file);
  if (reports.empty()) return;
  const auto keys = key_fields(reports);
  if (!long_form) {
    std::vector<Fields> rows;
    // the summary's every field: a column summaries gain is exported with them
    const auto summary = to_json(file.seed(), digest, reports);
    for (std::size_t c = 0; c < reports.size(); ++c) {
      auto& row = rows.emplace_back(Fields{{"cell", fmt::to_string(c)}});
      row.insert(row.end(), keys[c].begin(), keys[c].end());
      const auto fields = summary_fields(summary["cells"][c]);
      row.insert(row.end(), fields.begin(), fields.end());
    }
    write_table(out, rows);
    return;
  }
  // a row per cell and checkpoint, written as it is made: every row has the
  // same columns (every cell has every key)
  bool header = true;
  const auto write = [&](const Fields& row) {
    std::vector<std::string> texts;
    if (header) {
      for (const auto& [column, _] : row) texts.push_back(column);
      write_row(out, texts);
      texts.clear();
      header = false;
    }
    for (const auto& [_, text] : row) texts.push_back(text);
    write_row(out, texts);
  };
  for (std::size_t c = 0; c < reports.size(); ++c) {
    const auto& r = reports[c];
    Fields cell{{"cell", fmt::to_string(c)}};
    cell.insert(cell.end(), keys[c].begin(), keys[c].end());
    cell.insert(cell.end(), {{"clients", fmt::to_string(r.clients)},
                             {"arms", fmt::to_string(r.arms)},
                             {"replications", fmt::to_string(r.regret.count)},
                             {"replications_requested", fmt::to_string(r.requested)}});
    const auto& stored = file.cells()[c];
    const auto summary = file.summary(c);  // [series][statistic][checkpoint]
    for (std::size_t t = 0; t < stored.checkpoints.size(); ++t) {
      auto row = cell;
      row.emplace_back("slot", fmt::to_string(stored.checkpoints[t]));
      for (std::size_t s = 0; s < summary.size(); ++s) {
        for (std::size_t k = 0; k < summary[s].size(); ++k) {
          row.emplace_back(
              fmt::format("{}_{}", CellSummary::kSeries[s], CellSummary::kStatistics[k]),
              number(summary[s][k][t]));
        }
      }
      write(row);
    }
  }
}

}  // namespace pfmab::io
