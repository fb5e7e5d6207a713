// pfmab command line: experiment (file and/or flags) -> cells -> parallel
// runner -> HDF5 output and/or report.
#include <csignal>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <tbb/info.h>

#include "pfmab/io/experiment.hpp"
#include "pfmab/io/merge.hpp"
#include "pfmab/io/progress.hpp"
#include "pfmab/io/report.hpp"
#include "pfmab/io/results_file.hpp"
#include "pfmab/io/writer_thread.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/mpi/launcher.hpp"
#ifdef PFMAB_MPI
#include "pfmab/mpi/distributed_run.hpp"
#endif
#include "pfmab/sim/runner.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/version.hpp"

namespace {

using namespace pfmab;

// Set by SIGINT/SIGTERM: no new replication starts; finished ones are kept.
std::atomic<bool> stop_requested{false};

extern "C" void request_stop(int) { stop_requested.store(true); }

// The experiment's flags, one per parameter that has one (io::parameters()),
// kept as text until parsed as the parameter's values: each one given
// replaces the file's value.
struct ExperimentFlags {
  std::string file;
  struct Given {
    const io::Parameter* parameter;
    CLI::Option* option;
    bool inline_means;  // --means-inline
  };
  std::vector<Given> given;
  std::map<std::string, std::string> texts;  // by flag: CLI11 writes into them
};

std::string help_of(const io::Parameter& parameter) {
  std::string help(parameter.help);
  if (parameter.sweeps && parameter.type != io::ValueType::means) help += " (a comma list sweeps)";
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
      auto* inline_option = app.add_option(inline_name, f.texts[inline_name],
                                           "local means inline: rows ';'-separated, values ','");
      option->excludes(inline_option);
      f.given.push_back({&parameter, inline_option, true});
    }
  }
}

io::Experiment load(const ExperimentFlags& f) {
  std::vector<io::FlagValues> overrides;
  for (const auto& given : f.given) {
    if (given.option->count() == 0) continue;
    overrides.push_back(io::parse_flag(*given.parameter, given.option->get_name(),
                                       given.option->as<std::string>(), given.inline_means));
  }
  return io::load_experiment(
      f.file.empty() ? std::nullopt : std::optional<std::filesystem::path>(f.file), overrides);
}

void print(bool json, std::uint64_t seed, const std::string& digest,
           const std::vector<io::CellReport>& reports) {
  if (json) {
    std::cout << io::to_json(seed, digest, reports).dump() << '\n';
  } else {
    io::print_table(std::cout, seed, digest, reports);
  }
}

struct RunFlags {
  ExperimentFlags experiment;
  std::string output, shard;
  bool overwrite = false;
  // the cores this process may use (an MPI rank's or a Slurm job's share)
  unsigned threads = static_cast<unsigned>(tbb::info::default_concurrency());
  bool json = false;
  bool quiet = false;
};

// The processes a run is shared among: this one alone, or the ranks of an
// MPI job, of which rank 0 (the leader) writes the output and reports.
struct World {
  int rank = 0;
  int size = 1;
  bool leader() const { return rank == 0; }
  bool shared() const { return size > 1; }
};

// A failure on every rank of an MPI job that another rank reports.
struct ReportedElsewhere {
  int status;
};

// Runs `step` on every rank. If it fails on any, it fails on all with the
// same status, and only one rank reports it: no rank may go on to wait for
// the others for ever, and N ranks must not print N copies of one message.
template <class Step>
void on_every_rank([[maybe_unused]] const World& world, Step&& step) {
#ifdef PFMAB_MPI
  if (world.shared()) {
    std::exception_ptr error;
    int status = 0;
    try {
      step();
    } catch (const UserError&) {
      error = std::current_exception();
      status = 2;
    } catch (const std::exception&) {
      error = std::current_exception();
      status = 1;
    }
    const auto agreed = mpi::agree(status);
    if (agreed.status == 0) return;
    if (agreed.rank == world.rank) std::rethrow_exception(error);
    throw ReportedElsewhere{agreed.status};
  }
#endif
  step();
}

// What a run needs before its first replication; the output file, if any,
// is the leader's.
struct RunSetup {
  io::Experiment experiment;
  const std::vector<sim::Cell>& cells;
  sim::RunOptions options;
  sim::Shard shard;
  std::optional<io::ResultsWriter> writer;

  explicit RunSetup(const RunFlags& f)
      : experiment(load(f.experiment)),
        cells(experiment.cells),
        shard(f.shard.empty() ? sim::Shard{} : sim::parse_shard(f.shard)) {
    options.seed = experiment.seed;
    options.replications = experiment.replications;
    options.threads = f.threads;
    sim::validate(options);  // before any output file is touched
    sim::validate(shard, experiment.replications);
    options.ranges.assign(cells.size(), shard.range(experiment.replications));
  }

  void open_output(const RunFlags& f) {
    writer.emplace(f.output, experiment, cells, f.overwrite, shard);
    for (std::size_t c = 0; c < cells.size(); ++c) options.ranges[c].first += writer->done(c);
  }
};

// The leader's part of a run: every replication handed to the writer and
// the report, with progress; alone, or coordinating the other ranks.
int lead_run(const RunFlags& f, [[maybe_unused]] const World& world, RunSetup& setup) {
  auto& [experiment, cells, options, shard, writer] = setup;
  const auto progress_as = io::progress_style(f.quiet);
  const auto total = sim::total(options.ranges);
  const auto asked = cells.size() * shard.range(experiment.replications).count();
  // A resumed run's earlier replications are only in the file: its report is
  // read back from there; any other run reports what its sink kept.
  const bool report_from_file = writer && writer->resumed();
  if (report_from_file && progress_as != io::ProgressStyle::none) {
    std::cerr << fmt::format("pfmab: continuing '{}': {} of {} replications are already there\n",
                             f.output, asked - total, asked);
  }

  std::vector<io::CellAccumulator> accumulators;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    accumulators.emplace_back(
        io::describe(cells[c], experiment.values[c],
                     shard.range(experiment.replications).count()));
  }
  Digest digest;
  std::atomic<std::uint64_t> completed{0};
  options.completed = &completed;
  options.stop = &stop_requested;
  {
    io::ProgressDisplay progress(completed, total, progress_as);
    std::optional<io::WriterThread> writing;
    if (writer) writing.emplace(*writer);
    const sim::ResultSink sink = [&](std::size_t c, std::uint64_t, sim::ReplicationResult&& r) {
      if (!report_from_file) {
        accumulators[c].add(r);
        r.add_to(digest);
      }
      if (!writing) return;
      // A failed write (a full disk) stops the run as a stop request does,
      // so that the pipeline drains (an exception through it would abandon
      // the replications in flight); finish() below reports it.
      try {
        writing->push(c, r);
      } catch (...) {
        stop_requested.store(true);
      }
    };
#ifdef PFMAB_MPI
    if (world.shared()) {
      mpi::run_distributed(cells, options, sink);
    } else {
      sim::run_sweep(cells, options, sink);
    }
#else
    sim::run_sweep(cells, options, sink);
#endif
    if (writing) writing->finish();
  }
  if (stop_requested.load()) {
    if (writer) {
      writer->flush();
      std::uint64_t done = 0;
      for (std::size_t c = 0; c < cells.size(); ++c) done += writer->done(c);
      std::cerr << fmt::format(
          "pfmab: interrupted: {} of {} replications are in '{}'; run the same command to "
          "continue\n",
          done, asked, f.output);
    } else {
      std::cerr << fmt::format("pfmab: interrupted after {} replications (nothing saved: no -o)\n",
                               completed.load());
    }
    return 130;
  }
  if (writer) {
    writer->write_summaries();
    writer->close();
    writer.reset();
  }
  if (report_from_file) {
    const auto [reports, file_digest] = io::read_reports(io::ResultsReader(f.output));
    print(f.json, experiment.seed, file_digest, reports);
  } else {
    std::vector<io::CellReport> reports;
    for (const auto& a : accumulators) reports.push_back(a.report());
    print(f.json, experiment.seed, digest.hex(), reports);
  }
  return 0;
}

int run_command(const RunFlags& f, const World& world) {
  std::optional<RunSetup> setup;
  // The output is opened once every rank is ready: a rank that cannot read
  // the experiment leaves no file behind.
  on_every_rank(world, [&] { setup.emplace(f); });
  on_every_rank(world, [&] {
    if (world.leader() && !f.output.empty()) setup->open_output(f);
  });

  struct sigaction action {};
  action.sa_handler = request_stop;
  action.sa_flags = SA_RESETHAND;  // a second Ctrl-C ends the program at once
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
#ifdef PFMAB_MPI
  if (world.shared()) {
    // From here on the ranks wait on one another: an error on one ends all.
    try {
      if (world.leader()) return lead_run(f, world, *setup);
      mpi::run_distributed(setup->cells, setup->options, {});  // rank 0 stops it
      return 0;
    } catch (const std::exception& e) {
      std::cerr << fmt::format("pfmab: error on rank {}: {}\n", world.rank, e.what());
      mpi::abort_all(1);
    }
  }
#endif
  return lead_run(f, world, *setup);
}

int validate_command(const ExperimentFlags& f) {
  const auto experiment = load(f);
  std::cout << fmt::format("{}: valid: {} cell{} x {} replications, seed {}\n", experiment.source,
                           experiment.cells.size(), experiment.cells.size() == 1 ? "" : "s",
                           experiment.replications, experiment.seed);
  return 0;
}

int bounds_command(const ExperimentFlags& f, bool json) {
  const auto experiment = load(f);
  std::vector<io::CellReport> cells;
  for (std::size_t c = 0; c < experiment.cells.size(); ++c) {
    cells.push_back(io::describe(experiment.cells[c], experiment.values[c],
                                 experiment.replications));
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
  const auto [reports, digest] = io::read_reports(file);
  print(json, file.seed(), digest, reports);
  return 0;
}

struct MergeFlags {
  std::vector<std::string> parts;
  std::string output;
  bool partial = false, overwrite = false, json = false;
};

int merge_command(const MergeFlags& f) {
  const std::vector<std::filesystem::path> parts(f.parts.begin(), f.parts.end());
  io::merge_shards(parts, f.output, f.partial, f.overwrite);
  return summary_command(f.output, f.json);
}

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) would otherwise kill the program with
  // SIGXFSZ; ignored, the write fails with EFBIG and is reported like a full
  // disk (docs/outputs.md).
  std::signal(SIGXFSZ, SIG_IGN);
  World world;
  const auto launch = mpi::launcher();
#ifdef PFMAB_MPI
  // Only under an MPI launcher: the same program runs alone without one.
  std::optional<mpi::Session> session;
  if (launch.launched) {
    try {
      session.emplace(argc, argv);
    } catch (const std::exception& e) {
      std::cerr << "pfmab: error: " << e.what() << '\n';
      return 1;
    }
    world = {session->rank(), session->size()};
  }
#else
  if (launch.ranks > 1) {
    if (launch.rank != 0) return 2;  // one message for the job
    std::cerr << fmt::format(
        "pfmab: error: started as {} MPI ranks, but this pfmab was built without MPI, so each "
        "would run the whole experiment (rebuild with -DPFMAB_MPI=ON, or run it alone)\n",
        launch.ranks);
    return 2;
  }
#endif
  CLI::App app{"pfmab: Monte Carlo engine for personalized federated multi-armed bandits"};
  app.set_version_flag("--version", fmt::format("pfmab {} ({})", PFMAB_VERSION, git_commit()));
  // At most one; an unknown word is then reported by name as unexpected.
  app.require_subcommand(0, 1);

  // -o "" would otherwise mean no output at all, silently.
  const CLI::Validator file_name(
      [](const std::string& name) { return name.empty() ? "the file name is empty" : ""; }, "FILE");

  RunFlags run_flags;
  auto* run = app.add_subcommand("run", "run an experiment: print its summary, stream it to HDF5");
  add_experiment_flags(*run, run_flags.experiment);
  run->add_option("-o,--output", run_flags.output,
                  "HDF5 output; an existing one of the same experiment is continued")
      ->check(file_name);
  run->add_flag("--overwrite", run_flags.overwrite, "replace an output of another experiment");
  run->add_option("--threads", run_flags.threads, "worker threads")->capture_default_str();
  run->add_option("--shard", run_flags.shard,
                  "run share I of N (0 <= I < N) of every cell's replications; join the shards "
                  "with merge");
  run->add_flag("--json", run_flags.json, "print one JSON object instead of the table");
  run->add_flag("--quiet,-q", run_flags.quiet, "no progress display");

  ExperimentFlags validate_flags;
  auto* validate = app.add_subcommand("validate", "check an experiment without running it");
  add_experiment_flags(*validate, validate_flags);

  ExperimentFlags bounds_flags;
  bool bounds_json = false;
  auto* bounds =
      app.add_subcommand("bounds", "print the paper's lower and upper regret bounds per cell");
  add_experiment_flags(*bounds, bounds_flags);
  bounds->add_flag("--json", bounds_json, "print one JSON object instead of the table");

  std::string summary_path;
  bool summary_json = false;
  auto* summary = app.add_subcommand("summary", "print the summary of an output file");
  summary->add_option("file", summary_path, "HDF5 output of pfmab run")->required();
  summary->add_flag("--json", summary_json, "print one JSON object instead of the table");

  MergeFlags merge_flags;
  auto* merge = app.add_subcommand(
      "merge", "join the shards of an experiment (run --shard I/N) into one output");
  merge->add_option("shards", merge_flags.parts, "the shards' output files")->required();
  merge->add_option("-o,--output", merge_flags.output, "the merged HDF5 output")
      ->required()
      ->check(file_name);
  merge->add_flag("--partial", merge_flags.partial,
                  "allow missing or incomplete shards; record which replications are present");
  merge->add_flag("--overwrite", merge_flags.overwrite, "replace an existing output");
  merge->add_flag("--json", merge_flags.json, "print one JSON object instead of the table");

  // Every rank parses the same command line; only the leader speaks.
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return world.leader() ? app.exit(e) : 0;
  } catch (const CLI::CallForAllHelp& e) {
    return world.leader() ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return world.leader() ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    if (world.leader()) {
      std::cerr << "pfmab: error: " << excerpt(e.what(), message_chars) << " (see pfmab --help)\n";
    }
    return 2;
  }
  try {
    if (run->parsed()) return run_command(run_flags, world);
    // The other commands are one process's work: the leader's.
    if (!world.leader()) return 0;
    if (validate->parsed()) return validate_command(validate_flags);
    if (summary->parsed()) return summary_command(summary_path, summary_json);
    if (bounds->parsed()) return bounds_command(bounds_flags, bounds_json);
    if (merge->parsed()) return merge_command(merge_flags);
    throw UserError(
        "no subcommand given (expected run, validate, summary, bounds or merge; see pfmab "
        "--help)");
  } catch (const ReportedElsewhere& e) {
    return e.status;
  } catch (const UserError& e) {
    std::cerr << "pfmab: error: " << excerpt(e.what(), message_chars) << '\n';
    return 2;
  } catch (const SystemError& e) {
    std::cerr << "pfmab: error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "pfmab: internal error: " << excerpt(e.what(), message_chars) << '\n';
    return 1;
  }
}
