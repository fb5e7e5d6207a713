#include "pfmab/io/report.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace pfmab::io {

CellReport describe(const sim::Cell& cell, const CellValues& values, std::uint64_t requested) {
  CellReport d;
  describe_algorithm(d, values);
  d.alpha = cell.spec().alpha;
  d.clients = cell.instance().clients();
  d.arms = cell.instance().arms();
  d.horizon = cell.horizon();
  d.schedule = cell.algorithm().schedule();
  d.rewards = model::to_string(cell.instance().rewards().kind);
  d.mode = sim::to_string(cell.drawn_fidelity());
  d.bounds = cell.algorithm().bounds(cell);
  d.requested = requested;
  return d;
}

void describe_algorithm(CellReport& report, const CellValues& values) {
  report.algorithm = values.word("algorithm.name");
  const auto& preset = values.word("algorithm.preset");
  const auto& lengths = values.word("algorithm.lengths");
  const double algorithm_alpha = values.real("algorithm.alpha");
  auto participation = nlohmann::json::object();
  std::vector<std::string> parts;
  if (preset != "paper") parts.push_back(preset);
  if (lengths != "paper") parts.push_back(lengths + " lengths");
  bool full = true;
  if (values.has("participation.clients")) {
    const auto clients = values.whole("participation.clients");
    participation["clients"] = clients;
    full = clients == values.means().table.rows.size();
    parts.push_back(fmt::format("S={}", clients));
  } else {
    const double probability = values.real("participation.probability");
    participation["probability"] = probability;
    full = probability == 1.0;
    if (!full) parts.push_back(fmt::format("q={}", probability));
  }
  // Moot with every client: left out.
  if (!full) {
    const auto& aggregate = values.word("participation.aggregate");
    participation["aggregate"] = aggregate;
    if (aggregate == "participants") parts.push_back("participants' means");
  }
  if (algorithm_alpha != values.real("alpha")) {
    parts.push_back(fmt::format("run at alpha {}", algorithm_alpha));
  }
  report.options = {{"preset", preset},
                    {"lengths", lengths},
                    {"algorithm_alpha", algorithm_alpha},
                    {"participation", participation}};
  report.variant.clear();
  for (const auto& part : parts) report.variant += (report.variant.empty() ? "" : ", ") + part;
}

void CellAccumulator::add(const sim::ReplicationResult& result) {
  final_regret_.add_row({&result.series.regret.back(), 1});
  comm_ += static_cast<double>(result.series.comm_count.back());
  phases_ += static_cast<double>(result.phases);
  identified_ += result.identified() ? 1.0 : 0.0;
}

CellReport CellAccumulator::report() const {
  auto report = report_;
  const auto n = static_cast<double>(final_regret_.count());
  report.regret = final_regret_.summaries().front();
  report.comm_count_mean = comm_ / n;
  report.phases_mean = phases_ / n;
  report.identified = identified_ / n;
  return report;
}

nlohmann::json to_json(const theory::Bounds& b) {
  auto out = nlohmann::json{{"log_T", b.log_horizon},
                            {"theorem1_constant", b.theorem1_constant},
                            {"theorem1_lower", b.theorem1_lower()},
                            {"corollary1_constant", b.corollary1_constant},
                            {"corollary1_lower", b.corollary1_lower()},
                            {"theorem2_upper", b.theorem2_upper}};
  if (!b.theorem2_note.empty()) out["theorem2_note"] = b.theorem2_note;
  return out;
}

nlohmann::json to_json(std::uint64_t seed, const std::string& digest,
                       std::span<const CellReport> cells) {
  auto out = nlohmann::json::object();
  out["seed"] = seed;
  out["digest"] = digest;
  out["cells"] = nlohmann::json::array();
  for (const auto& c : cells) {
    out["cells"].push_back({
        {"algorithm", c.algorithm},
        {"options", c.options},
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
        {"phases", {{"mean", c.phases_mean}}},
        {"identified", c.identified},
        {"bounds", to_json(c.bounds)},
    });
  }
  return out;
}

namespace {

// A table's number with `digits` decimals, or "n/a" where there is none (a
// bound that does not apply, a confidence interval of one replication): a
// table never prints nan.
std::string fixed(double value, int digits) {
  return std::isfinite(value) ? fmt::format("{:.{}f}", value, digits) : "n/a";
}

std::string interval(double low, double high) {
  return std::isfinite(low) && std::isfinite(high) ? fmt::format("[{:.1f}, {:.1f}]", low, high)
                                                   : "n/a";
}

}  // namespace

void print_table(std::ostream& out, std::uint64_t seed, const std::string& digest,
                 std::span<const CellReport> cells) {
  std::vector<std::string> labels;
  std::size_t width = 8;
  for (const auto& c : cells) {
    labels.push_back(c.variant.empty() ? c.algorithm : c.algorithm + " [" + c.variant + "]");
    width = std::max(width, labels.back().size());
  }
  fmt::print(out,
             "{:<{}} {:>6} {:>4} {:>4} {:>10} {:>11} {:>12} {:>25} {:>10} {:>7} {:>10} {:>12} "
             "{:>12}\n",
             "algo", width, "alpha", "M", "K", "T", "reps", "regret", "95% CI", "comm", "phases",
             "identified", "lower Th.1", "upper Th.2");
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto& c = cells[i];
    // an interrupted run shows how far each cell got
    const auto reps = c.regret.count == c.requested
                          ? fmt::format("{}", c.requested)
                          : fmt::format("{}/{}", c.regret.count, c.requested);
    if (c.regret.count == 0) {
      fmt::print(out, "{:<{}} {:>6} {:>4} {:>4} {:>10} {:>11} {:>12}\n", labels[i], width, c.alpha,
                 c.clients, c.arms, c.horizon, reps, "-");
      continue;
    }
    fmt::print(out,
               "{:<{}} {:>6} {:>4} {:>4} {:>10} {:>11} {:>12.1f} {:>25} {:>10.1f} {:>7.2f} "
               "{:>9.1f}% {:>12} {:>12}\n",
               labels[i], width, c.alpha, c.clients, c.arms, c.horizon, reps, c.regret.mean,
               interval(c.regret.ci95_low, c.regret.ci95_high), c.comm_count_mean, c.phases_mean,
               100.0 * c.identified, fixed(c.bounds.theorem1_lower(), 1),
               fixed(c.bounds.theorem2_upper, 1));
  }
  fmt::print(out, "seed {}  mode {}  schedule f(p) = {}  digest {}\n", seed,
             cells.empty() ? "-" : cells.front().mode, cells.empty() ? "-" : cells.front().schedule,
             digest);
}

nlohmann::json bounds_json(std::span<const CellReport> cells) {
  auto out = nlohmann::json{{"cells", nlohmann::json::array()}};
  for (const auto& c : cells) {
    out["cells"].push_back({{"alpha", c.alpha},
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
  fmt::print(out,
             "{:>6} {:>4} {:>4} {:>14} {:>9} {:>16} {:>7} {:>11} {:>11} {:>11} {:>11} {:>12}\n",
             "alpha", "M", "K", "T", "rewards", "schedule", "log T", "Th.1 const", "Th.1 lower",
             "Cor.1 const", "Cor.1 lower", "Th.2 upper");
  std::vector<std::string> notes;
  for (const auto& c : cells) {
    const auto& b = c.bounds;
    fmt::print(out,
               "{:>6} {:>4} {:>4} {:>14} {:>9} {:>16} {:>7.3f} {:>11} {:>11} {:>11} {:>11} "
               "{:>12}\n",
               c.alpha, c.clients, c.arms, c.horizon, c.rewards, c.schedule, b.log_horizon,
               fixed(b.theorem1_constant, 2), fixed(b.theorem1_lower(), 1),
               fixed(b.corollary1_constant, 2), fixed(b.corollary1_lower(), 1),
               fixed(b.theorem2_upper, 1));
    if (!b.theorem2_note.empty()) {
      notes.push_back(fmt::format("alpha {}, T {}: {}", c.alpha, c.horizon, b.theorem2_note));
    }
  }
  fmt::print(out,
             "lower bounds: liminf R(T) / log T >= constant (Theorem 1, Corollary 1: Gaussian "
             "rewards); upper: Theorem 2 at T\n");
  for (const auto& note : notes) fmt::print(out, "Th.2 n/a: {}\n", note);
}

}  // namespace pfmab::io
