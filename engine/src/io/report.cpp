#include "pfmab/io/report.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace pfmab::io {

CellReport describe(const sim::Cell& cell, const CellValues& values, std::uint64_t requested,
                    theory::Games& games, const StopToken& stop) {
  CellReport d;
  d.algorithm = values.word("algorithm.name");
  d.alpha = cell.spec().alpha;
  d.clients = cell.instance().clients();
  d.arms = cell.instance().arms();
  d.horizon = cell.horizon();
  d.schedule = cell.algorithm().schedule();
  d.rewards = cell.instance().rewards().name();
  d.mode = sim::to_string(cell.drawn_fidelity());
  d.comm_cost = cell.spec().comm_cost;
  d.keys = cell_keys(values, d.mode);
  d.bounds = cell.algorithm().bounds(cell, games, stop);
  d.requested = requested;
  return d;
}

double CellReport::comm_share() const {
  if (comm_count_mean == 0.0) return 0.0;
  return comm_cost * comm_count_mean / regret.mean;
}

std::vector<CellKey> cell_keys(const CellValues& values, const std::string& mode) {
  std::vector<CellKey> keys;
  const auto all = parameters();
  for (std::size_t k = 0; k < values.size(); ++k) {
    const auto& parameter = all[k];
    if (!parameter.of_cell) continue;
    const auto& value = values.all()[k];
    if (parameter.type == ValueType::means) {
      keys.push_back({"instance", values.means().name, false});
    } else if (parameter.key == "mode") {
      keys.push_back({"mode", mode, mode == std::get<std::string>(default_of(parameter, {}))});
    } else if (no_effect(parameter, values)) {
      keys.push_back({std::string(parameter.name()), nullptr, true});
    } else {
      const bool at_default = value == default_of(parameter, values.all());
      keys.push_back({std::string(parameter.name()), io::to_json(value), at_default,
                      at_default && parameter.derive});
    }
  }
  return keys;
}

std::vector<std::string> varied_keys(std::span<const CellReport> cells) {
  std::vector<std::string> varied;
  if (cells.empty()) return varied;
  for (std::size_t k = 0; k < cells.front().keys.size(); ++k) {
    std::optional<nlohmann::json> first;
    const auto differs = [&](const CellReport& c) {
      const auto& key = c.keys[k];
      // a derived value stands for "what the others say", not a number
      const auto value = key.derived ? nlohmann::json("derived") : key.value;
      if (value.is_null()) return false;
      if (!first) first = value;
      return value != *first;
    };
    if (std::any_of(cells.begin(), cells.end(), differs)) {
      varied.push_back(cells.front().keys[k].name);
    }
  }
  return varied;
}

std::vector<std::string> instance_names(std::span<const std::string> given) {
  const auto stem = [](const std::string& path) {
    return std::filesystem::path(path).stem().string();
  };
  std::map<std::string, std::set<std::string>> paths_of;  // stem -> the paths of that name
  for (const auto& path : given) paths_of[stem(path)].insert(path);
  std::vector<std::string> names;
  for (const auto& path : given) {
    names.push_back(paths_of[stem(path)].size() > 1 ? path : stem(path));
  }
  return names;
}

std::vector<std::vector<CellKey>> shown_keys(std::span<const CellReport> cells) {
  const auto is_instance = [](const CellKey& key) { return key.name == "instance"; };
  std::vector<std::string> given;
  for (const auto& c : cells) {
    const auto at = std::find_if(c.keys.begin(), c.keys.end(), is_instance);
    given.push_back(at == c.keys.end() ? std::string() : at->value.get<std::string>());
  }
  const auto names = instance_names(given);
  std::vector<std::vector<CellKey>> shown;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    auto keys = cells[c].keys;
    const auto at = std::find_if(keys.begin(), keys.end(), is_instance);
    if (at != keys.end()) at->value = names[c];
    shown.push_back(std::move(keys));
  }
  return shown;
}

void CellAccumulator::add(const sim::ReplicationResult& result) {
  final_regret_.add_row({&result.series.regret.back(), 1});
  comm_ += static_cast<double>(result.series.comm_count.back());
  phases_ += static_cast<double>(result.phases);
  identified_ += result.identified() ? 1.0 : 0.0;
  used_ += result.used;
}

CellReport CellAccumulator::report() const {
  auto report = report_;
  const auto n = static_cast<double>(final_regret_.count());
  report.regret = final_regret_.summaries().front();
  report.comm_count_mean = comm_ / n;
  report.phases_mean = phases_ / n;
  report.identified = identified_ / n;
  report.used = used_;
  return report;
}

nlohmann::json to_json(const theory::Bounds& b) {
  auto out = nlohmann::json{{"log_T", b.log_horizon},
                            {"theorem1_constant", b.theorem1_constant},
                            {"theorem1_lower", b.theorem1_lower()},
                            {"corollary1_constant", b.corollary1_constant},
                            {"corollary1_lower", b.corollary1_lower()},
                            {"c_star", b.c_star},
                            {"c_star_log_T", b.c_star_log_horizon()},
                            {"theorem2_upper", b.theorem2_upper}};
  if (!b.c_star_note.empty()) out["c_star_note"] = b.c_star_note;
  if (!b.theorem2_note.empty()) out["theorem2_note"] = b.theorem2_note;
  return out;
}

namespace {

nlohmann::json keys_json(const std::vector<CellKey>& shown) {
  auto keys = nlohmann::json::object();
  for (const auto& key : shown) keys[key.name] = key.value;
  return keys;
}

// A cell's total seconds, NaN (null in JSON) where nothing was measured.
double total_seconds(double seconds, const sim::TimeUsed& used) {
  return used.replications == 0 ? std::numeric_limits<double>::quiet_NaN() : seconds;
}

nlohmann::json varied_json(std::span<const CellReport> cells) {
  auto varied = nlohmann::json::array();
  for (const auto& key : varied_keys(cells)) varied.push_back(key);
  return varied;
}

}  // namespace

nlohmann::json to_json(std::uint64_t seed, const std::string& digest,
                       std::span<const CellReport> cells) {
  auto out = nlohmann::json::object();
  out["seed"] = seed;
  out["digest"] = digest;
  out["varied"] = varied_json(cells);
  out["cells"] = nlohmann::json::array();
  const auto shown = shown_keys(cells);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto& c = cells[i];
    out["cells"].push_back({
        {"algorithm", c.algorithm},
        {"keys", keys_json(shown[i])},
        {"alpha", c.alpha},
        {"clients", c.clients},
        {"arms", c.arms},
        {"horizon", c.horizon},
        {"schedule", c.schedule},
        {"rewards", c.rewards},
        {"mode", c.mode},
        {"replications", c.regret.count},
        {"replications_requested", c.requested},
        {"regret",
         {{"mean", c.regret.mean},
          {"std", c.regret.std},
          {"ci95", {c.regret.ci95_low, c.regret.ci95_high}}}},
        {"comm_count", {{"mean", c.comm_count_mean}}},
        {"comm_share", c.comm_share()},
        {"phases", {{"mean", c.phases_mean}}},
        {"identified", c.identified},
        {"cpu_seconds", total_seconds(c.used.cpu_seconds, c.used)},
        {"wall_seconds", total_seconds(c.used.wall_seconds, c.used)},
        {"timed_replications", c.used.replications},
        {"cpu_seconds_per_replication", c.used.cpu_per_replication()},
        {"wall_seconds_per_replication", c.used.wall_per_replication()},
        {"bounds", to_json(c.bounds)},
        {"regret_over_c_star_log_T",
         {{"mean", c.regret.mean / c.bounds.c_star_log_horizon()},
          {"ci95",
           {c.regret.ci95_low / c.bounds.c_star_log_horizon(),
            c.regret.ci95_high / c.bounds.c_star_log_horizon()}}}},
    });
  }
  return out;
}

namespace {

// What a table's columns of constants are; `columns` names those it shows.
std::string constants_legend(const char* columns) {
  return fmt::format(
      "{}, where for any uniformly good algorithm\n"
      "liminf R(T) / log T >= the constant (the paper's Theorem 1 and Corollary 1; C* the tight "
      "one,\ndocs/bounds.md). Times log T it is no bound on the regret at a finite T. upper "
      "Th.2: Theorem 2's\nbound on PF-UCB's R(T).",
      columns);
}

// A table's number with `digits` decimals, or "n/a" where there is none (a
// bound that does not apply, a confidence interval of one replication): a
// table never prints nan.
std::string fixed(double value, int digits) {
  if (std::isinf(value) && value > 0) return "inf";  // an infinite constant
  return std::isfinite(value) ? fmt::format("{:.{}f}", value, digits) : "n/a";
}

// A fraction as a percentage with one decimal, "n/a" where it is none.
std::string percent(double fraction) {
  return std::isfinite(fraction) ? fixed(100.0 * fraction, 1) + "%" : "n/a";
}

std::string interval(double low, double high, int digits = 1) {
  return std::isfinite(low) && std::isfinite(high)
             ? fmt::format("[{:.{}f}, {:.{}f}]", low, digits, high, digits)
             : "n/a";
}

// regret / (C* log T), with its 95% interval: C* is exact, so the interval
// is the regret's, scaled.
std::string c_star_ratio(const CellReport& c) {
  const double scale = c.bounds.c_star_log_horizon();
  const double mean = c.regret.mean / scale;
  if (!std::isfinite(mean)) return "n/a";
  return fmt::format("{:.2f} {}", mean,
                     interval(c.regret.ci95_low / scale, c.regret.ci95_high / scale, 2));
}

// The keys of a table's rows: those that vary as columns, the others once
// in lines above it. An instance is shown by its name (instance_names), with
// its M and K; T and C by the paper's letters; a key without effect on a cell
// as "-".
class KeyColumns {
 public:
  explicit KeyColumns(std::span<const CellReport> cells) : rows_(cells.size()) {
    if (cells.empty()) return;
    const auto varied = varied_keys(cells);
    const auto shown = shown_keys(cells);
    // `sample`: a cell the key has an effect on, if it is shown constant;
    // `value_of(c)`: cell c's value
    const auto add = [&](const std::string& label, bool varies, std::optional<std::size_t> sample,
                         auto&& value_of) {
      if (!varies) {
        if (sample) constants_.push_back(label + " " + value_of(*sample));
        return;
      }
      std::size_t width = label.size();
      for (std::size_t c = 0; c < cells.size(); ++c) {
        rows_[c].push_back(value_of(c));
        width = std::max(width, rows_[c].back().size());
      }
      labels_.push_back(label);
      widths_.push_back(width);
    };
    for (std::size_t k = 0; k < cells.front().keys.size(); ++k) {
      const auto& name = cells.front().keys[k].name;
      const bool varies = std::find(varied.begin(), varied.end(), name) != varied.end();
      const bool always = std::find(std::begin(kAlwaysShown), std::end(kAlwaysShown), name) !=
                          std::end(kAlwaysShown);
      const auto with_effect = std::find_if(cells.begin(), cells.end(), [&](const CellReport& c) {
        return !c.keys[k].value.is_null();
      });
      std::optional<std::size_t> sample;
      if (with_effect != cells.end() && (always || !with_effect->keys[k].at_default)) {
        sample = static_cast<std::size_t>(with_effect - cells.begin());
      }
      add(label_of(name), varies, sample,
          [&](std::size_t c) { return shown_value(shown[c][k]); });
      if (name != "instance") continue;
      const auto differ = [&](auto member) {
        return std::any_of(cells.begin(), cells.end(),
                           [&](const CellReport& c) { return c.*member != cells.front().*member; });
      };
      add("M", differ(&CellReport::clients), 0,
          [&](std::size_t c) { return fmt::to_string(cells[c].clients); });
      add("K", differ(&CellReport::arms), 0,
          [&](std::size_t c) { return fmt::to_string(cells[c].arms); });
    }
  }

  // The constant keys, as lines of at most about 120 characters (the table is
  // wider).
  void print_constants(std::ostream& out) const {
    std::string line;
    for (const auto& constant : constants_) {
      if (!line.empty() && line.size() + 2 + constant.size() > 120) {
        fmt::print(out, "{}\n", line);
        line.clear();
      }
      line += (line.empty() ? "" : "  ") + constant;
    }
    if (!line.empty()) fmt::print(out, "{}\n", line);
  }
  std::string header() const { return cells_of(labels_); }
  std::string row(std::size_t cell) const { return cells_of(rows_[cell]); }

 private:
  static constexpr const char* kAlwaysShown[] = {"instance",  "algorithm", "alpha", "horizon",
                                                 "comm_cost", "schedule",  "mode"};

  static std::string label_of(const std::string& name) {
    if (name == "horizon") return "T";
    if (name == "comm_cost") return "C";
    return name;
  }

  static std::string shown_value(const CellKey& key) {
    if (key.value.is_null()) return "-";
    if (key.value.is_string()) return key.value.get<std::string>();
    if (key.value.is_number_float()) return fmt::format("{}", key.value.get<double>());
    return key.value.dump();
  }

  // The key columns of one line, left-aligned, each followed by two spaces.
  std::string cells_of(const std::vector<std::string>& values) const {
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) {
      out += fmt::format("{:<{}}  ", values[i], widths_[i]);
    }
    return out;
  }

  std::vector<std::string> constants_;          // "label value"
  std::vector<std::string> labels_;             // of the varied keys
  std::vector<std::size_t> widths_;             // of their columns
  std::vector<std::vector<std::string>> rows_;  // per cell, its varied keys' values
};

// "row 2", "rows 1-3, 5": table rows numbered from 1.
std::string rows_named(const std::vector<std::size_t>& rows) {
  std::string out = rows.size() == 1 ? "row " : "rows ";
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    while (j + 1 < rows.size() && rows[j + 1] == rows[j] + 1) ++j;
    out += fmt::format("{}{}", i == 0 ? "" : ", ", rows[i] + 1);
    if (j > i) out += fmt::format("-{}", rows[j] + 1);
    i = j + 1;
  }
  return out;
}

// Why `column` is n/a, once per distinct reason in the cells' order, with
// the rows it holds for: "C* n/a: rows 1-3: the KL program's solve ...".
void print_reasons(std::ostream& out, std::string_view column, std::span<const CellReport> cells,
                   std::string theory::Bounds::*reason) {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> reasons;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto& why = cells[i].bounds.*reason;
    if (why.empty()) continue;
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](auto& r) { return r.first == why; });
    if (it == reasons.end()) it = reasons.insert(reasons.end(), {why, {}});
    it->second.push_back(i);
  }
  for (const auto& [why, rows] : reasons) {
    fmt::print(out, "{} n/a: {}: {}\n", column, rows_named(rows), why);
  }
}

}  // namespace

void print_table(std::ostream& out, std::uint64_t seed, const std::string& digest,
                 std::span<const CellReport> cells) {
  const KeyColumns keys(cells);
  keys.print_constants(out);
  fmt::print(out,
             "{}{:>11} {:>12} {:>25} {:>10} {:>10} {:>7} {:>10} {:>11} {:>10} {:>22} {:>12} {:>10} "
             "{:>11} {:>9} {:>9}\n",
             keys.header(), "reps", "regret", "95% CI", "comm", "comm share", "phases",
             "identified", "Th.1 log T", "C* log T", "regret / C* log T", "upper Th.2",
             "cpu ms/rep", "wall ms/rep", "cpu s", "wall s");
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto& c = cells[i];
    // an interrupted run shows how far each cell got
    const auto reps = c.regret.count == c.requested
                          ? fmt::format("{}", c.requested)
                          : fmt::format("{}/{}", c.regret.count, c.requested);
    if (c.regret.count == 0) {
      fmt::print(out, "{}{:>11} {:>12}\n", keys.row(i), reps, "-");
      continue;
    }
    // every number through fixed(): a damaged output's NaN rows read n/a
    fmt::print(
        out,
        "{}{:>11} {:>12} {:>25} {:>10} {:>10} {:>7} {:>10} {:>11} {:>10} {:>22} {:>12} "
        "{:>10} {:>11} {:>9} {:>9}\n",
        keys.row(i), reps, fixed(c.regret.mean, 1), interval(c.regret.ci95_low, c.regret.ci95_high),
        fixed(c.comm_count_mean, 1), percent(c.comm_share()), fixed(c.phases_mean, 2),
        percent(c.identified), fixed(c.bounds.theorem1_lower(), 1),
        fixed(c.bounds.c_star_log_horizon(), 1), c_star_ratio(c), fixed(c.bounds.theorem2_upper, 1),
        fixed(1e3 * c.used.cpu_per_replication(), 3), fixed(1e3 * c.used.wall_per_replication(), 3),
        fixed(total_seconds(c.used.cpu_seconds, c.used), 3),
        fixed(total_seconds(c.used.wall_seconds, c.used), 3));
  }
  fmt::print(out,
             "comm share: the part of the regret that is communication, C x comm / regret.\n"
             "cpu, wall ms/rep: a replication's mean processor time (of the thread that ran it) "
             "and elapsed time;\ncpu s, wall s: their totals over the cell. They vary from run to "
             "run and are in no digest.\n{}\n",
             constants_legend("Th.1 log T, C* log T: asymptotic constants times log T"));
  print_reasons(out, "C*", cells, &theory::Bounds::c_star_note);
  fmt::print(out, "seed {}  digest {}\n", seed, digest);
}

nlohmann::json bounds_json(std::span<const CellReport> cells) {
  auto out = nlohmann::json{{"varied", varied_json(cells)}, {"cells", nlohmann::json::array()}};
  const auto shown = shown_keys(cells);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto& c = cells[i];
    out["cells"].push_back({{"keys", keys_json(shown[i])},
                            {"alpha", c.alpha},
                            {"clients", c.clients},
                            {"arms", c.arms},
                            {"horizon", c.horizon},
                            {"rewards", c.rewards},
                            {"schedule", c.schedule},
                            {"bounds", to_json(c.bounds)}});
  }
  return out;
}

void print_bounds_table(std::ostream& out, std::span<const CellReport> cells) {
  const KeyColumns keys(cells);
  keys.print_constants(out);
  fmt::print(out, "{}{:>16} {:>7} {:>11} {:>11} {:>11} {:>11} {:>10} {:>10} {:>12}\n",
             keys.header(), "f(p)", "log T", "Th.1 const", "Th.1 log T", "Cor.1 const",
             "Cor.1 log T", "C*", "C* log T", "Th.2 upper");
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto& c = cells[i];
    const auto& b = c.bounds;
    fmt::print(out, "{}{:>16} {:>7.3f} {:>11} {:>11} {:>11} {:>11} {:>10} {:>10} {:>12}\n",
               keys.row(i), c.schedule, b.log_horizon, fixed(b.theorem1_constant, 2),
               fixed(b.theorem1_lower(), 1), fixed(b.corollary1_constant, 2),
               fixed(b.corollary1_lower(), 1), fixed(b.c_star, 2), fixed(b.c_star_log_horizon(), 1),
               fixed(b.theorem2_upper, 1));
  }
  fmt::print(out, "{}\n",
             constants_legend("Th.1, Cor.1, C*: asymptotic constants (Cor.1: Gaussian rewards)"));
  print_reasons(out, "C*", cells, &theory::Bounds::c_star_note);
  print_reasons(out, "Th.2", cells, &theory::Bounds::theorem2_note);
}

}  // namespace pfmab::io
