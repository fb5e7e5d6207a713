#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pfmab/io/experiment.hpp"
#include "pfmab/io/option_names.hpp"
#include "pfmab/io/progress.hpp"
#include "pfmab/io/report.hpp"
#include "pfmab/run/world.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/shard.hpp"

// The run of an experiment, as `pfmab run` does it: every replication of
// its cells (or of a shard of them) on any number of threads and ranks,
// streamed to an HDF5 output if one is named, continued from it if it holds
// part of the run, summarised in a report.
namespace pfmab::run {

struct Options {
  unsigned threads = 1;  // per rank: the cores this process may use
  sim::Shard shard;      // the share of every cell's replications to run
  // The HDF5 output, none if empty: every replication is streamed to it by
  // the leader; an output of the same shard of the same experiment is
  // continued, one of another replaced only if `overwrite`.
  std::filesystem::path output;
  bool overwrite = false;
  // How messages name the shard, output and overwrite options.
  io::OptionNames names;
  // How the leader shows its progress on stderr: also whether it says, on
  // continuing an output, how many replications are already there.
  io::ProgressStyle progress = io::ProgressStyle::none;
  // Where the reported style's progress goes (called from a thread of the
  // run's own, never concurrently).
  io::ProgressCallback on_progress;
  // Once true (read by the leader), no new replication starts; those
  // running are discarded, those finished are kept (written to the output).
  // Set during the set-up (before on_start), it ends the set-up at once:
  // run_experiment throws Interrupted, having written nothing.
  // The run sets it itself when a write fails, so that the replications in
  // flight drain before the error is thrown. None: the run cannot be stopped
  // from outside.
  std::atomic<bool>* stop = nullptr;
  // Called on every rank once every rank is set up (experiment checked,
  // output opened), before the first replication starts: from then on a
  // stop keeps what is done, while before it there is nothing to keep.
  std::function<void()> on_start;
};

// What a complete run printed: `pfmab run`'s report, and `pfmab summary`'s
// of an output.
struct Report {
  std::uint64_t seed = 0;
  std::string digest;  // of every replication's results, in order
  std::vector<io::CellReport> cells;
  std::vector<io::RefusedCell> refused;  // the cells of the sweep it skipped
};

// A run ended by Options::stop.
struct Stopped {
  // The replications kept: those in the output (of this run and earlier
  // ones), or without one those that finished.
  std::uint64_t kept = 0;
  std::uint64_t asked = 0;  // every cell's share of replications
};

// Where the leader's time went, in seconds, and the writer thread's
// processor time (bench/README.md, "Results pipeline").
struct Timings {
  double open = 0.0;       // creating or opening the output
  double sweep = 0.0;      // the replications, until the last is written
  double summaries = 0.0;  // the summaries of cells completed earlier
  double close = 0.0;      // the output's last flush and close
  double writer_cpu = 0.0;
};

struct Outcome {
  // The leader's report, if the run was not stopped; other ranks' are empty.
  std::optional<Report> report;
  std::optional<Stopped> stopped;
  Timings timings;
  // The leader's games (theory::Games) and its C* solves: one per Gaussian
  // game within the solver's limit, however many cells share it.
  std::size_t games = 0;
  std::size_t c_star_solves = 0;
};

// Runs `experiment` on `world`, every rank calling it with the same arguments
// (but `stop` and `on_start`, which are each rank's own). A resumed run's
// report is read back from the output, any other's is what the run
// computed: the same for the same experiment and shard, whatever the
// threads, ranks or interruptions. Throws UserError for an invalid thread
// count or shard, or an output that may not be written (then leaving no
// file behind), Interrupted for a stop requested during the set-up (then
// leaving no file behind, or the output as it was), SystemError for a
// failed write; on an MPI world, an error
// is thrown on every rank (see World::on_every_rank) until the run starts,
// and ends the job after.
Outcome run_experiment(const io::Experiment& experiment, const Options& options, World& world);

}  // namespace pfmab::run
