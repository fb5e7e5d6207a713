#include "pfmab/io/report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace pfmab::io {

CellReport report_cell(const sim::Cell& cell, std::span<const sim::ReplicationResult> results) {
  CellReport report;
  report.algorithm = "pf-ucb";
  report.alpha = cell.spec().alpha;
  report.clients = cell.instance().clients();
  report.arms = cell.instance().arms();
  report.horizon = cell.horizon();
  report.schedule = algorithms::describe(cell.spec().params.schedule);
  std::vector<double> final_regret;
  double comm = 0.0, phases = 0.0, identified = 0.0;
  for (const auto& r : results) {
    final_regret.push_back(r.series.regret.back());
    comm += static_cast<double>(r.series.comm_count.back());
    phases += static_cast<double>(r.phases);
    identified += r.identified() ? 1.0 : 0.0;
  }
  const auto n = static_cast<double>(results.size());
  report.regret = stats::summarize(final_regret);
  report.comm_count_mean = comm / n;
  report.phases_mean = phases / n;
  report.identified = identified / n;
  return report;
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
        {"alpha", c.alpha},
        {"clients", c.clients},
        {"arms", c.arms},
        {"horizon", c.horizon},
        {"schedule", c.schedule},
        {"replications", c.regret.count},
        {"regret",
         {{"mean", c.regret.mean},
          {"std", c.regret.std},
          {"ci95", {c.regret.ci95_low, c.regret.ci95_high}}}},
        {"comm_count", {{"mean", c.comm_count_mean}}},
        {"phases", {{"mean", c.phases_mean}}},
        {"identified", c.identified},
    });
  }
  return out;
}

void print_table(std::ostream& out, std::uint64_t seed, const std::string& digest,
                 std::span<const CellReport> cells) {
  fmt::print(out, "{:<8} {:>6} {:>4} {:>4} {:>10} {:>6} {:>12} {:>25} {:>10} {:>7} {:>10}\n",
             "algo", "alpha", "M", "K", "T", "reps", "regret", "95% CI", "comm", "phases",
             "identified");
  for (const auto& c : cells) {
    fmt::print(
        out, "{:<8} {:>6} {:>4} {:>4} {:>10} {:>6} {:>12.1f} {:>25} {:>10.1f} {:>7.2f} {:>9.1f}%\n",
        c.algorithm, c.alpha, c.clients, c.arms, c.horizon, c.regret.count, c.regret.mean,
        fmt::format("[{:.1f}, {:.1f}]", c.regret.ci95_low, c.regret.ci95_high), c.comm_count_mean,
        c.phases_mean, 100.0 * c.identified);
  }
  fmt::print(out, "seed {}  schedule f(p) = {}  digest {}\n", seed,
             cells.empty() ? "-" : cells.front().schedule, digest);
}

}  // namespace pfmab::io
