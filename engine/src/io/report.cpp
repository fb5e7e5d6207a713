#include "pfmab/io/report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace pfmab::io {

void CellAccumulator::add(const sim::ReplicationResult& result) {
  final_regret_.push_back(result.series.regret.back());
  comm_ += static_cast<double>(result.series.comm_count.back());
  phases_ += static_cast<double>(result.phases);
  identified_ += result.identified() ? 1.0 : 0.0;
}

CellReport CellAccumulator::report() const {
  auto report = report_;
  const auto n = static_cast<double>(final_regret_.size());
  report.regret = stats::summarize(final_regret_);
  report.comm_count_mean = comm_ / n;
  report.phases_mean = phases_ / n;
  report.identified = identified_ / n;
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
        {"replications_requested", c.requested},
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
  fmt::print(out, "{:<8} {:>6} {:>4} {:>4} {:>10} {:>11} {:>12} {:>25} {:>10} {:>7} {:>10}\n",
             "algo", "alpha", "M", "K", "T", "reps", "regret", "95% CI", "comm", "phases",
             "identified");
  for (const auto& c : cells) {
    // an interrupted run shows how far each cell got
    const auto reps = c.regret.count == c.requested
                          ? fmt::format("{}", c.requested)
                          : fmt::format("{}/{}", c.regret.count, c.requested);
    if (c.regret.count == 0) {
      fmt::print(out, "{:<8} {:>6} {:>4} {:>4} {:>10} {:>11} {:>12}\n", c.algorithm, c.alpha,
                 c.clients, c.arms, c.horizon, reps, "-");
      continue;
    }
    fmt::print(out,
               "{:<8} {:>6} {:>4} {:>4} {:>10} {:>11} {:>12.1f} {:>25} {:>10.1f} {:>7.2f} "
               "{:>9.1f}%\n",
               c.algorithm, c.alpha, c.clients, c.arms, c.horizon, reps, c.regret.mean,
               fmt::format("[{:.1f}, {:.1f}]", c.regret.ci95_low, c.regret.ci95_high),
               c.comm_count_mean, c.phases_mean, 100.0 * c.identified);
  }
  fmt::print(out, "seed {}  schedule f(p) = {}  digest {}\n", seed,
             cells.empty() ? "-" : cells.front().schedule, digest);
}

}  // namespace pfmab::io
