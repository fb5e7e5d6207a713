// pfmab command line: flags -> cells -> parallel runner -> report.
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "pfmab/io/progress.hpp"
#include "pfmab/io/report.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/sim/runner.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/parse.hpp"

namespace {

using namespace pfmab;

struct RunFlags {
  std::string means_file;
  std::string means_inline;
  std::vector<double> alphas{0.0, 0.2, 0.5, 0.9, 1.0};
  std::string horizon = "1e6";
  std::string replications = "100";
  std::uint64_t seed = 1;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::string rewards = "gaussian";
  double sigma = 1.0;
  double comm_cost = 1.0;
  std::string schedule = "doubling-log";
  double lambda = 1.0;
  double schedule_factor = 1.0;
  double confidence_constant = 4.0;
  std::string log_term = "T";
  bool json = false;
  bool quiet = false;
};

void add_run_flags(CLI::App& run, RunFlags& f) {
  auto* file = run.add_option("--means", f.means_file,
                              "CSV of local means: one row per client, '#' comments");
  auto* inline_means = run.add_option("--means-inline", f.means_inline,
                                      "local means inline: rows ';'-separated, values ','");
  file->excludes(inline_means);
  run.add_option("--alpha", f.alphas, "personalisation weight(s), comma-separated; one cell each")
      ->delimiter(',')
      ->check(CLI::Number)
      ->capture_default_str();
  run.add_option("--horizon,-T", f.horizon, "horizon T in slots (1e6 is fine)")
      ->capture_default_str();
  run.add_option("--replications,-R", f.replications, "replications per cell")
      ->capture_default_str();
  run.add_option("--seed", f.seed, "master seed")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  run.add_option("--threads", f.threads, "worker threads")->capture_default_str();
  run.add_option("--rewards", f.rewards, "reward family: gaussian or bernoulli")
      ->capture_default_str();
  run.add_option("--sigma", f.sigma, "Gaussian reward standard deviation")
      ->check(CLI::Number)
      ->capture_default_str();
  run.add_option("--comm-cost,-C", f.comm_cost, "regret per client per communication round")
      ->check(CLI::Number)
      ->capture_default_str();
  run.add_option("--schedule", f.schedule,
                 "f(p): doubling-log (2^p log T), constant (lambda), constant-log (lambda log T), "
                 "doubling (2^p)")
      ->capture_default_str();
  run.add_option("--lambda", f.lambda, "lambda of the constant schedules")
      ->check(CLI::Number)
      ->capture_default_str();
  run.add_option("--schedule-factor", f.schedule_factor, "factor multiplying f(p)")
      ->check(CLI::Number)
      ->capture_default_str();
  run.add_option("--confidence-constant", f.confidence_constant,
                 "c_B in B_p = sqrt(c_B L / (M F(p)))")
      ->check(CLI::Number)
      ->capture_default_str();
  run.add_option("--log-term", f.log_term, "L in B_p: T (log T) or MT (log(MT))")
      ->capture_default_str();
  run.add_flag("--json", f.json, "print one JSON object instead of the table");
  run.add_flag("--quiet,-q", f.quiet, "no progress display");
}

std::vector<sim::Cell> make_cells(const RunFlags& f) {
  if (f.alphas.empty()) throw UserError("--alpha needs at least one value in [0, 1]");
  if (f.means_file.empty() && f.means_inline.empty()) {
    throw UserError("no instance given (use --means FILE.csv or --means-inline 'ROWS')");
  }
  const auto table = f.means_file.empty() ? model::parse_inline_means(f.means_inline)
                                          : model::read_means_csv(f.means_file);
  model::RewardFamily rewards{model::parse_reward_kind(f.rewards), f.sigma};
  auto instance = std::make_shared<const model::Instance>(table, rewards);

  algorithms::PfUcbParams params;
  params.schedule = {algorithms::parse_schedule_kind(f.schedule), f.lambda, f.schedule_factor};
  params.confidence_constant = f.confidence_constant;
  if (f.log_term == "T") {
    params.log_term = algorithms::LogTerm::horizon;
  } else if (f.log_term == "MT") {
    params.log_term = algorithms::LogTerm::clients_horizon;
  } else {
    throw UserError(fmt::format("--log-term '{}' is not T or MT", f.log_term));
  }

  const auto horizon = parse_count(f.horizon, "horizon T");
  std::vector<sim::Cell> cells;
  for (std::size_t i = 0; i < f.alphas.size(); ++i) {
    cells.emplace_back(sim::CellSpec{instance, f.alphas[i], params, horizon, f.comm_cost}, i);
  }
  return cells;
}

int run_command(const RunFlags& f) {
  const auto cells = make_cells(f);
  sim::RunOptions options;
  options.seed = f.seed;
  options.replications = parse_count(f.replications, "replications");
  options.threads = f.threads;
  std::atomic<std::uint64_t> completed{0};
  options.completed = &completed;

  std::vector<std::vector<sim::ReplicationResult>> results;
  {
    io::ProgressDisplay progress(completed, cells.size() * options.replications,
                                 !f.quiet && io::stderr_is_terminal());
    results = sim::run_sweep(cells, options);
  }
  std::vector<io::CellReport> reports;
  for (std::size_t c = 0; c < cells.size(); ++c)
    reports.push_back(io::report_cell(cells[c], results[c]));
  const auto digest = sim::digest_of(results);
  if (f.json) {
    std::cout << io::to_json(f.seed, digest, reports).dump() << '\n';
  } else {
    io::print_table(std::cout, f.seed, digest, reports);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pfmab: Monte Carlo engine for personalized federated multi-armed bandits"};
  app.set_version_flag("--version", fmt::format("pfmab {} ({})", PFMAB_VERSION, PFMAB_GIT_COMMIT));
  // At most one; an unknown word is then reported by name as unexpected.
  app.require_subcommand(0, 1);
  RunFlags run_flags;
  auto* run = app.add_subcommand("run", "run PF-UCB replications and print their summary");
  add_run_flags(*run, run_flags);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "pfmab: error: " << e.what() << " (see pfmab --help)\n";
    return 2;
  }
  try {
    if (run->parsed()) return run_command(run_flags);
    throw UserError("no subcommand given (expected 'run'; see pfmab --help)");
  } catch (const UserError& e) {
    std::cerr << "pfmab: error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "pfmab: internal error: " << e.what() << '\n';
    return 1;
  }
}
