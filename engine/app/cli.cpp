// The program's commands: the flags of each, and what each does with them.
#include "cli.hpp"

#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "pfmab/io/experiment.hpp"
#include "pfmab/io/merge.hpp"
#include "pfmab/io/progress.hpp"
#include "pfmab/io/report.hpp"
#include "pfmab/io/results_file.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/run/run_experiment.hpp"
#include "pfmab/sim/shard.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/parse.hpp"

namespace pfmab::cli {
namespace {

// Set by SIGINT/SIGTERM: no new replication starts; finished ones are kept.
std::atomic<bool> stop_requested{false};

extern "C" void request_stop(int) { stop_requested.store(true); }

void add_experiment_flags(CLI::App& app, ExperimentFlags& f) {
  app.add_option("experiment", f.file, "experiment file (TOML); flags below override it")
      ->check(CLI::ExistingFile);
  auto add = [&](const std::string& key, CLI::Option* option) {
    f.given.emplace_back(key, option);
  };
  auto* file = app.add_option("--means", f.means_file,
                              "CSV of local means: one row per client, '#' comments");
  auto* inline_means = app.add_option("--means-inline", f.means_inline,
                                      "local means inline: rows ';'-separated, values ','");
  file->excludes(inline_means);
  add("instance.means", file);
  add("instance.means", inline_means);
  add("algorithm.name",
      app.add_option("--algorithm", f.algorithms,
                     "pf-ucb, pf-ucb-enhanced, local-ucb, centralized-ucb (comma-separated)")
          ->delimiter(','));
  add("algorithm.preset", app.add_option("--preset", f.presets,
                                         "PF-UCB's rules: paper or authors-code (comma-separated)")
                              ->delimiter(','));
  add("algorithm.alpha",
      app.add_option("--algorithm-alpha", f.algorithm_alpha,
                     "the alpha the algorithm runs with, if not --alpha (mis-specified)")
          ->check(CLI::Number));
  add("algorithm.lengths", app.add_option("--lengths", f.lengths,
                                          "exploration lengths: paper or large-m (Sec. 4 remark)"));
  add("participation.probability",
      app.add_option("--participation", f.participation,
                     "q: each client takes part in a phase with probability q")
          ->check(CLI::Number));
  add("participation.clients",
      app.add_option("--participants", f.participants, "S: exactly S clients take part per phase"));
  add("participation.aggregate",
      app.add_option("--aggregate", f.aggregate,
                     "under partial participation the server averages: latest (every client's "
                     "last report) or participants (this phase's only)"));
  add("alpha", app.add_option("--alpha", f.alphas, "personalisation weight(s), comma-separated")
                   ->delimiter(',')
                   ->check(CLI::Number));
  add("horizon", app.add_option("--horizon,-T", f.horizon, "horizon T in slots (1e6 is fine)"));
  add("replications", app.add_option("--replications,-R", f.replications, "replications per cell"));
  add("seed", app.add_option("--seed", f.seed, "master seed")->check(CLI::NonNegativeNumber));
  add("instance.rewards", app.add_option("--rewards", f.rewards, "gaussian or bernoulli"));
  add("instance.sigma",
      app.add_option("--sigma", f.sigma, "Gaussian reward standard deviation")->check(CLI::Number));
  add("comm_cost",
      app.add_option("--comm-cost,-C", f.comm_cost, "regret per client per communication round")
          ->check(CLI::Number));
  add("algorithm.schedule",
      app.add_option("--schedule", f.schedule,
                     "f(p): doubling-log (2^p log T), constant (lambda), constant-log (lambda log "
                     "T), doubling (2^p)"));
  add("algorithm.lambda",
      app.add_option("--lambda", f.lambda, "lambda of the constant schedules")->check(CLI::Number));
  add("algorithm.schedule_factor",
      app.add_option("--schedule-factor", f.schedule_factor, "factor multiplying f(p)")
          ->check(CLI::Number));
  add("algorithm.confidence_constant",
      app.add_option("--confidence-constant", f.confidence_constant,
                     "c_B in B_p = sqrt(c_B L / (M F(p)))")
          ->check(CLI::Number));
  add("algorithm.log_term",
      app.add_option("--log-term", f.log_term, "L in B_p: T (log T) or MT (log(MT))"));
  add("mode", app.add_option("--mode", f.mode,
                             "aggregated (one draw per arm and run, cost independent of T) or "
                             "per-pull (one draw per pull)"));
}

// Sets `value` at a dotted key of `table`, creating the sub-table.
void set(toml::table& table, const std::string& key, toml::node&& value) {
  const auto dot = key.find('.');
  if (dot == std::string::npos) {
    table.insert_or_assign(key, std::move(value));
    return;
  }
  auto [sub, inserted] = table.emplace<toml::table>(key.substr(0, dot));
  set(*sub->second.as_table(), key.substr(dot + 1), std::move(value));
}

io::Experiment load(const ExperimentFlags& f) {
  toml::table overrides;
  std::map<std::string, std::string> flags;
  for (const auto& [key, option] : f.given) {
    if (option->count() == 0) continue;
    const auto name = option->get_name();
    flags[key] = name;
    if (name == "--means") {
      set(overrides, key, toml::value<std::string>(f.means_file));
    } else if (name == "--means-inline") {
      toml::array rows;
      for (const auto& row : model::parse_inline_means(f.means_inline).rows) {
        toml::array values;
        for (double v : row) values.push_back(v);
        rows.push_back(std::move(values));
      }
      set(overrides, key, std::move(rows));
    } else if (name == "--alpha") {
      if (f.alphas.empty()) throw UserError("--alpha needs at least one value in [0, 1]");
      toml::array values;
      for (double a : f.alphas) values.push_back(a);
      set(overrides, key, std::move(values));
    } else if (name == "--algorithm" || name == "--preset") {
      const auto& words = name == "--algorithm" ? f.algorithms : f.presets;
      if (words.empty()) throw UserError(name + " needs at least one value");
      toml::array values;
      for (const auto& w : words) values.push_back(w);
      set(overrides, key, std::move(values));
    } else if (name == "--horizon" || name == "--replications" || name == "--seed" ||
               name == "--participants") {
      const auto count = name == "--seed" ? f.seed
                         : name == "--participants"
                             ? parse_count(f.participants, "participating clients S")
                             : parse_count(name == "--horizon" ? f.horizon : f.replications,
                                           name == "--horizon" ? "horizon T" : "replications");
      set(overrides, key, toml::value<std::int64_t>(static_cast<std::int64_t>(count)));
    } else if (name == "--rewards" || name == "--schedule" || name == "--log-term" ||
               name == "--mode" || name == "--lengths" || name == "--aggregate") {
      set(overrides, key, toml::value<std::string>(option->as<std::string>()));
    } else {
      set(overrides, key, toml::value<double>(option->as<double>()));
    }
  }
  if (f.file.empty() && overrides.at_path("instance.means").node() == nullptr) {
    throw UserError(
        "no instance given (use --means FILE.csv, --means-inline 'ROWS' or an experiment file)");
  }
  return io::load_experiment(
      f.file.empty() ? std::nullopt : std::optional<std::filesystem::path>(f.file), overrides,
      flags);
}

void print(bool json, const run::Report& report) {
  if (json) {
    std::cout << io::to_json(report.seed, report.digest, report.cells).dump() << '\n';
  } else {
    io::print_table(std::cout, report.seed, report.digest, report.cells);
  }
}

int run_command(const RunFlags& f, run::World& world) {
  std::optional<run::Sweep> sweep;
  run::Options options;
  // Every rank reads the experiment; one reports what is wrong with it.
  world.on_every_rank([&] {
    sweep.emplace(load(f.experiment));
    if (!f.shard.empty()) options.shard = sim::parse_shard(f.shard);
  });
  options.threads = f.threads;
  options.output = f.output;
  options.overwrite = f.overwrite;
  options.progress = io::progress_style(f.quiet);
  options.stop = &stop_requested;
  options.on_start = [] {
    struct sigaction action {};
    action.sa_handler = request_stop;
    action.sa_flags = SA_RESETHAND;  // a second Ctrl-C ends the program at once
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
  };
  const auto outcome = run::run_experiment(*sweep, options, world);
  if (outcome.stopped && f.output.empty()) {
    std::cerr << fmt::format("pfmab: interrupted after {} replications (nothing saved: no -o)\n",
                             outcome.stopped->kept);
  } else if (outcome.stopped) {
    std::cerr << fmt::format(
        "pfmab: interrupted: {} of {} replications are in '{}'; run the same command to "
        "continue\n",
        outcome.stopped->kept, outcome.stopped->asked, f.output);
  }
  if (outcome.stopped) return 130;
  if (outcome.report) print(f.json, *outcome.report);
  return 0;
}

int validate_command(const ExperimentFlags& f) {
  const run::Sweep sweep(load(f));
  const auto& experiment = sweep.experiment;
  std::cout << fmt::format("{}: valid: {} cell{} x {} replications, seed {}\n", experiment.source,
                           experiment.cells.size(), experiment.cells.size() == 1 ? "" : "s",
                           experiment.replications, experiment.seed);
  return 0;
}

int bounds_command(const ExperimentFlags& f, bool json) {
  const run::Sweep sweep(load(f));
  std::vector<io::CellReport> cells;
  for (std::size_t c = 0; c < sweep.cells.size(); ++c) {
    cells.push_back(io::describe(sweep.cells[c], sweep.experiment.canonical["cells"][c],
                                 sweep.experiment.replications));
  }
  if (json) {
    std::cout << io::bounds_json(cells).dump() << '\n';
  } else {
    io::print_bounds_table(std::cout, cells);
  }
  return 0;
}

int summary_command(const std::string& path, bool json) {
  const io::ResultsReader file(path);
  auto [reports, digest] = io::read_reports(file);
  print(json, {file.seed(), std::move(digest), std::move(reports)});
  return 0;
}

int merge_command(const MergeFlags& f) {
  const std::vector<std::filesystem::path> parts(f.parts.begin(), f.parts.end());
  io::merge_shards(parts, f.output, f.partial, f.overwrite);
  return summary_command(f.output, f.json);
}

}  // namespace

Commands::Commands(CLI::App& app) {
  // -o "" would otherwise mean no output at all, silently.
  const CLI::Validator file_name(
      [](const std::string& name) { return name.empty() ? "the file name is empty" : ""; }, "FILE");

  run_ = app.add_subcommand("run", "run an experiment: print its summary, stream it to HDF5");
  add_experiment_flags(*run_, run_flags_.experiment);
  run_->add_option("-o,--output", run_flags_.output,
                   "HDF5 output; an existing one of the same experiment is continued")
      ->check(file_name);
  run_->add_flag("--overwrite", run_flags_.overwrite, "replace an output of another experiment");
  run_->add_option("--threads", run_flags_.threads, "worker threads")->capture_default_str();
  run_->add_option("--shard", run_flags_.shard,
                   "run share I of N (0 <= I < N) of every cell's replications; join the shards "
                   "with merge");
  run_->add_flag("--json", run_flags_.json, "print one JSON object instead of the table");
  run_->add_flag("--quiet,-q", run_flags_.quiet, "no progress display");

  validate_ = app.add_subcommand("validate", "check an experiment without running it");
  add_experiment_flags(*validate_, validate_flags_);

  bounds_ =
      app.add_subcommand("bounds", "print the paper's lower and upper regret bounds per cell");
  add_experiment_flags(*bounds_, bounds_flags_);
  bounds_->add_flag("--json", bounds_json_, "print one JSON object instead of the table");

  summary_ = app.add_subcommand("summary", "print the summary of an output file");
  summary_->add_option("file", summary_path_, "HDF5 output of pfmab run")->required();
  summary_->add_flag("--json", summary_json_, "print one JSON object instead of the table");

  merge_ = app.add_subcommand("merge",
                              "join the shards of an experiment (run --shard I/N) into one output");
  merge_->add_option("shards", merge_flags_.parts, "the shards' output files")->required();
  merge_->add_option("-o,--output", merge_flags_.output, "the merged HDF5 output")
      ->required()
      ->check(file_name);
  merge_->add_flag("--partial", merge_flags_.partial,
                   "allow missing or incomplete shards; record which replications are present");
  merge_->add_flag("--overwrite", merge_flags_.overwrite, "replace an existing output");
  merge_->add_flag("--json", merge_flags_.json, "print one JSON object instead of the table");
}

int Commands::execute(run::World& world) const {
  if (run_->parsed()) return run_command(run_flags_, world);
  // The other commands are one process's work: the leader's.
  if (!world.leader()) return 0;
  if (validate_->parsed()) return validate_command(validate_flags_);
  if (summary_->parsed()) return summary_command(summary_path_, summary_json_);
  if (bounds_->parsed()) return bounds_command(bounds_flags_, bounds_json_);
  if (merge_->parsed()) return merge_command(merge_flags_);
  throw UserError(
      "no subcommand given (expected run, validate, summary, bounds or merge; see pfmab "
      "--help)");
}

}  // namespace pfmab::cli
