#include "pfmab/run/run_experiment.hpp"

#include <chrono>
#include <iostream>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "pfmab/io/results_file.hpp"
#include "pfmab/io/writer_thread.hpp"
#include "pfmab/sim/runner.hpp"
#include "pfmab/util/digest.hpp"

namespace pfmab::run {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The leader's part of a run, once set up: every replication handed to the
// writer and the report, with progress; alone, or coordinating the other
// ranks.
void lead(const io::Experiment& experiment, const Options& options, World& world,
          sim::RunOptions& run, std::vector<io::CellAccumulator>& accumulators,
          std::optional<io::ResultsWriter>& writer, Outcome& outcome) {
  const auto& cells = experiment.cells;
  const auto total = sim::total(run.ranges);
  std::uint64_t asked = 0;  // every cell's share
  for (const auto& range : experiment.ranges_of(options.shard)) asked += range.count();
  // A resumed run's earlier replications are only in the file: its report is
  // read back from there; any other run reports what its sink kept.
  const bool report_from_file = writer && writer->resumed();
  if (report_from_file && options.progress != io::ProgressStyle::none) {
    std::cerr << fmt::format("pfmab: continuing '{}': {} of {} replications are already there\n",
                             options.output.string(), asked - total, asked);
  }

  Digest digest;
  auto& timings = outcome.timings;
  std::atomic<bool> own_stop{false};
  auto& stop = options.stop ? *options.stop : own_stop;
  std::atomic<std::uint64_t> completed{0};
  run.completed = &completed;
  run.stop = &stop;
  {
    // every rank's threads
    const auto workers = static_cast<std::uint64_t>(world.size()) * run.threads;
    // a continued run counts what it continues as done
    std::vector<std::uint64_t> kept(cells.size(), 0);
    if (writer) {
      for (std::size_t c = 0; c < cells.size(); ++c) kept[c] = writer->done(c);
    }
    io::ProgressDisplay progress(io::cell_work(cells, experiment.values, run.ranges, kept), workers,
                                 options.progress, {}, options.on_progress);
    std::optional<io::WriterThread> writing;
    if (writer) writing.emplace(*writer);
    if (writing) run.settle = [&] { writing->settle(); };
    const sim::ResultSink sink = [&](std::size_t c, std::uint64_t, sim::ReplicationResult&& r) {
      progress.handed_on(c);
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
        stop.store(true);
      }
    };
    const auto start = Clock::now();
    run.timed = [&](std::size_t c, const sim::TimeUsed& used) { progress.finished(c, used); };
    world.run(cells, run, sink);
    run.settle = nullptr;  // it names `writing`, which ends here
    run.timed = {};        // and `progress`
    if (writing) {
      writing->finish();
      timings.writer_cpu = writing->cpu_seconds();
    }
    timings.sweep = seconds_since(start);
  }
  if (stop.load()) {
    outcome.stopped = Stopped{completed.load(), asked};
    if (writer) {
      writer->flush();
      outcome.stopped->kept = 0;
      for (std::size_t c = 0; c < cells.size(); ++c) outcome.stopped->kept += writer->done(c);
    }
    return;
  }
  if (writer) {
    auto start = Clock::now();
    writer->write_summaries();
    timings.summaries = seconds_since(start);
    start = Clock::now();
    writer->close();
    writer.reset();
    timings.close = seconds_since(start);
  }
  auto& report = outcome.report.emplace();
  report.seed = experiment.seed;
  report.refused = experiment.refused;
  if (report_from_file) {
    std::tie(report.cells, report.digest) = io::read_reports(io::ResultsReader(options.output));
  } else {
    for (const auto& a : accumulators) report.cells.push_back(a.report());
    report.digest = digest.hex();
  }
}

}  // namespace

Outcome run_experiment(const io::Experiment& experiment, const Options& options, World& world) {
  const auto& cells = experiment.cells;
  sim::RunOptions run;
  run.seed = experiment.seed;
  run.threads = options.threads;
  world.on_every_rank([&] {
    sim::validate(run);  // before any output file is touched
    sim::validate(options.shard, experiment.total_replications(), options.names.shard);
  });
  run.ranges = experiment.ranges_of(options.shard);

  // The reports and the output are the leader's, made once every rank is
  // ready: a rank that cannot run the experiment leaves no file behind. A
  // stop request during the set-up (the bounds' C* solves, the output's
  // cells) throws Interrupted, leaving no file behind either.
  const StopToken stop(options.stop);
  std::vector<io::CellAccumulator> accumulators;
  std::optional<io::ResultsWriter> writer;
  Outcome outcome;
  world.on_every_rank([&] {
    if (!world.leader()) return;
    // The leader alone needs the bounds (its reports and output), so only it
    // solves the games, each once, for the reports and the output alike.
    theory::Games games;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      accumulators.emplace_back(
          io::describe(cells[c], experiment.values[c], run.ranges[c].count(), games, stop));
    }
    outcome.games = games.size();
    outcome.c_star_solves = games.solves();
    if (options.output.empty()) return;
    const auto start = Clock::now();
    writer.emplace(options.output, experiment, cells, games, options.overwrite, options.shard,
                   options.names, stop);
    outcome.c_star_solves = games.solves();
    for (std::size_t c = 0; c < cells.size(); ++c) run.ranges[c].first += writer->done(c);
    outcome.timings.open = seconds_since(start);
  });

  if (options.on_start) options.on_start();
  // From here on the ranks wait on one another.
  world.all_or_none([&] {
    if (world.leader()) {
      lead(experiment, options, world, run, accumulators, writer, outcome);
    } else {
      world.run(cells, run, {});  // the leader stops it
    }
  });
  return outcome;
}

}  // namespace pfmab::run
