// The program's commands: the flags of each, and what each does with them.
#include "cli.hpp"

#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/io/experiment.hpp"
#include "pfmab/io/export.hpp"
#include "pfmab/io/merge.hpp"
#include "pfmab/io/progress.hpp"
#include "pfmab/io/report.hpp"
#include "pfmab/io/results_file.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/run/run_experiment.hpp"
#include "pfmab/sim/shard.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/stop_token.hpp"

#include "stop_requests.hpp"

namespace pfmab::cli {
namespace {

std::string help_of(const io::Parameter& parameter) {
  std::string help(parameter.help);
  if (parameter.key == "algorithm.name") {  // every registered one
    for (const auto& entry : algorithms::registered_algorithms()) {
      help += fmt::format("{} {}", help.ends_with(':') ? "" : ",", entry.name);
    }
    help += ", or module:Class, a pfmab.Algorithm written in Python (docs/python.md)";
  }
  if (parameter.sweeps) help += " (a comma list sweeps)";
  if (!parameter.fallback.empty()) help += fmt::format(" [{}]", parameter.fallback);
  return help;
}

void add_experiment_flags(CLI::App& app, ExperimentFlags& f) {
  app.add_option("experiment", f.file, "experiment file (TOML); flags below override it")
      ->check(CLI::ExistingFile);
  for (const auto& parameter : io::parameters()) {
    if (parameter.flags.empty()) continue;
    const std::string names(parameter.flags);
    auto* option = app.add_option(names, f.texts[names], help_of(parameter));
    f.given.push_back({&parameter, option, false});
    if (parameter.type == io::ValueType::means) {
      const auto inline_name = names + "-inline";
      auto* inline_option = app.add_option(
          inline_name, f.texts[inline_name],
          "local means inline: rows ';'-separated, values ',' (games '|'-separated sweep)");
      option->excludes(inline_option);
      f.given.push_back({&parameter, inline_option, true});
    }
  }
  app.add_flag("--skip-refused", f.skip_refused,
               "run the cells of the sweep that are not refused (an algorithm that refuses a "
               "reward family, ...) and record those that are (skip_refused = true in the file)");
}

io::Experiment load(const ExperimentFlags& f) {
  std::vector<io::FlagValues> overrides;
  for (const auto& given : f.given) {
    if (given.option->count() == 0) continue;
    overrides.push_back(io::parse_flag(*given.parameter, given.option->get_name(),
                                       given.option->as<std::string>(), given.inline_means));
  }
  return io::load_experiment(
      f.file.empty() ? std::nullopt : std::optional<std::filesystem::path>(f.file), overrides,
      f.skip_refused);
}

void print(bool json, const run::Report& report) {
  if (json) {
    auto out = io::to_json(report.seed, report.digest, report.cells);
    io::add_refused(out, report.refused);
    std::cout << out.dump() << '\n';
  } else {
    io::print_table(std::cout, report.seed, report.digest, report.cells);
    std::cout << io::refused_lines(report.refused);
  }
}

int run_command(const RunFlags& f, run::World& world) {
  std::optional<io::Experiment> experiment;
  run::Options options;
  options.stop = &stop_requested();
  const StopToken stop(options.stop);
  // Every rank reads the experiment; one reports what is wrong with it.
  world.on_every_rank([&] {
    experiment.emplace(load(f.experiment));
    stop.throw_if_requested();
    if (!f.shard.empty()) options.shard = sim::parse_shard(f.shard);
  });
  options.threads = f.threads;
  options.output = f.output;
  options.overwrite = f.overwrite;
  options.progress = io::progress_style(f.quiet);
  if (!f.quiet && world.leader()) {
    for (const auto& note : experiment->notes) std::cerr << "pfmab: note: " << note << '\n';
  }
  const auto outcome = run::run_experiment(*experiment, options, world);
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

// "5 cells x 1000 replications", or with blocks of their own counts
// "130 cells, 5200 replications (20 to 200 per cell)".
std::string size_of(const io::Experiment& experiment) {
  const auto n = experiment.cells.size();
  std::uint64_t least = UINT64_MAX, most = 0;
  for (std::size_t c = 0; c < n; ++c) {
    least = std::min(least, experiment.replications(c));
    most = std::max(most, experiment.replications(c));
  }
  if (least == most) return fmt::format("{} cell{} x {} replications", n, n == 1 ? "" : "s", most);
  return fmt::format("{} cells, {} replications ({} to {} per cell)", n,
                     experiment.total_replications(), least, most);
}

int validate_command(const ExperimentFlags& f) {
  const auto experiment = load(f);
  std::cout << fmt::format("{}: valid: {}, seed {}\n", experiment.source, size_of(experiment),
                           experiment.seed);
  for (const auto& note : experiment.notes) std::cout << "  note: " << note << '\n';
  return 0;
}

int bounds_command(const ExperimentFlags& f, bool json) {
  const auto experiment = load(f);
  const StopToken stop(&stop_requested());
  std::vector<io::CellReport> cells;
  theory::Games games;
  for (std::size_t c = 0; c < experiment.cells.size(); ++c) {
    cells.push_back(io::describe(experiment.cells[c], experiment.values[c],
                                 experiment.replications(c), games, stop));
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
  print(json, {file.seed(), std::move(digest), std::move(reports), file.refused()});
  return 0;
}

int export_command(const std::string& path, bool long_form) {
  const io::ResultsReader file(path);
  std::ostringstream table;  // all of it or nothing: a damaged output prints no half table
  io::export_csv(file, table, long_form);
  std::cout << table.str();
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

  export_ = app.add_subcommand(
      "export", "print an output as one CSV table (pandas.read_csv reads it), every key a column");
  export_->add_option("file", export_path_, "HDF5 output of pfmab run")->required();
  export_->add_flag("--csv", export_csv_, "CSV, the one format (the default)");
  export_->add_flag("--long", export_long_,
                    "a row per cell and checkpoint with every summary series, not per cell");

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
  try {
    if (run_->parsed()) return run_command(run_flags_, world);
    // The other commands are one process's work: the leader's.
    if (!world.leader()) return 0;
    if (bounds_->parsed()) return bounds_command(bounds_flags_, bounds_json_);
  } catch (const Interrupted&) {  // before the run's first replication, or in the bounds
    std::cerr << (run_->parsed() ? "pfmab: interrupted while setting up the run: nothing written\n"
                                 : "pfmab: interrupted\n");
    return 130;
  }
  release_stop_requests();  // the commands below never poll it
  if (validate_->parsed()) return validate_command(validate_flags_);
  if (summary_->parsed()) return summary_command(summary_path_, summary_json_);
  if (merge_->parsed()) return merge_command(merge_flags_);
  if (export_->parsed()) return export_command(export_path_, export_long_);
  throw UserError(
      "no subcommand given (expected run, validate, summary, bounds, merge or export; see pfmab "
      "--help)");
}

}  // namespace pfmab::cli
