#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "pfmab/io/parameters.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/shard.hpp"
#include "pfmab/sim/time_used.hpp"

namespace pfmab::io {

// How a run shows its progress.
enum class ProgressStyle {
  none,
  redrawn,   // one line on stderr redrawn in place four times a second: a terminal
  logged,    // a line of its own on stderr once a minute: a batch job's log file
  reported,  // handed to a program's callback four times a second (the Python package)
};

// What a progress line says, for a program that shows it its own way.
struct ProgressReport {
  std::uint64_t done = 0;           // replications handed on, or kept from an earlier run
  std::uint64_t total = 0;          // that the run asks (a continued run's included)
  double elapsed = 0.0;             // seconds
  std::optional<double> remaining;  // seconds, estimated; none before a replication is done
  std::size_t cell = 0;             // the cell being handed on, from 0
  std::size_t cells = 0;
  std::string cell_name;  // as the line shows it (CellWork::name)
};
using ProgressCallback = std::function<void(const ProgressReport&)>;

// The style for this process's stderr: redrawn on a terminal, logged
// otherwise, none when `quiet`.
ProgressStyle progress_style(bool quiet);

// One cell of a run as its progress sees it.
struct CellWork {
  // Short, for the progress line: what tells it from the run's other cells,
  // "pf-alloc alpha 0.5 C 10 T 1e6 movielens_10x40" or "Policy radius 2".
  std::string name;
  // The cells of one algorithm and game size ("10x40", M x K) share a
  // measured correction of their estimated costs.
  std::string algorithm;
  std::string game;
  double cost = 1.0;  // of one replication, estimated (sim::replication_cost): positive
  std::uint64_t replications = 0;  // that this run makes
  std::uint64_t kept = 0;          // kept from an earlier run (a continued output): done, untimed
  // Whether `cost` models the algorithm's work (sim::Algorithm::cost_modelled):
  // a Python class's is only the engine's share of its replication.
  bool modelled = true;
};

// The cells of a run that makes the replications `ranges` of them, with
// their estimated costs (sim::replication_cost) and the replications `kept`
// of each from an earlier run (none if empty). A cell's name gives its
// algorithm where the cells' differ, and every key that takes more than one
// value among one algorithm's cells (io::varied_keys of `values`: a Python
// algorithm's options too; not one that differs only with the algorithm,
// as the mode a baseline draws with): the algorithm alone (a Python class
// by its class's name, unless another of the sweep's has it), alpha, C, T
// and the means file's name as "alpha 0.5", "C 10", "T 1e6",
// "movielens_10x40", any other as "radius 2"; a key with no effect on the
// cell (C of a baseline) is left out. A run of one cell, or of cells alike,
// names its algorithm, alpha, C, T and means file.
std::vector<CellWork> cell_work(std::span<const sim::Cell> cells,
                                std::span<const CellValues> values,
                                std::span<const sim::ReplicationRange> ranges,
                                std::span<const std::uint64_t> kept = {});

// How far a run is and how long the rest should take, learned from what
// each replication took (sim::TimeUsed: its wall seconds, where it ran) as
// soon as it is done: the run hands replications on in order, but its
// threads may run later ones first (oneTBB takes the newest of the
// pipeline's tokens first), and up to sim::max_in_flight of them may be
// done and waiting for an earlier one. Times are seconds since the run
// started, on any clock.
//
// What a replication of a cell takes, in wall seconds, is the mean of its
// replications done, weighed with one replication's worth of what it
// is expected to take: its estimated cost (sim::replication_cost) times the
// seconds per unit of cost measured on its algorithm and game size (for an
// algorithm the estimate models, each of the group's cells begun one sample
// of it and the machine's rate another: centralized-kl-ucb's cells at
// alpha 0 need not cost what those at 0.5 do per unit), else on its
// algorithm's other game sizes, else the machine's.
// So one replication of a cell tells what its others take (an option or an
// alpha that changes the cost, which the estimate does not see, is learned
// at the cell's first replication), and its group's rate prices its cells
// not yet begun.
//
// The machine's seconds per unit are the rate of the algorithm that holds
// the middle of the work measured (in units of estimated cost) among the
// algorithms whose estimate models them (CellWork::modelled), not their
// pooled time over their pooled work: an algorithm the estimate misjudges
// (pf-alloc's solves, before the estimate knew them, by 1000 times) then
// sets its own cells' rate alone, and a cheap one whose replications are
// mostly overhead (pf-ucb's) does not set the rate of costly ones. Before
// any such algorithm has run, the estimate's own unit, a nanosecond of an
// idle machine, stretched by the load the replications done show (their
// wall seconds over their processor seconds, over the workers: a Python
// policy's replication may have waited for every other's GIL). An
// algorithm whose estimate does not model it (a Python class, whose
// policy's calls are most of its cost and no estimate knows them) takes
// nobody's rate and lends none: until its first replication is done
// its cells count at what the engine's share of them costs, an
// underestimate; its rate is its own from then on.
//
// The rest takes the time of the replications not done over the run's
// parallelism: the wall seconds of the replications done, and of those
// running (`workers` - 1 of them besides the one begun in place of the last
// done, taken as `in_flight_done` done), over the time until the last was
// done. A thread waiting for a Python policy's GIL or for a core taken by
// other jobs adds to that wall time, one left idle (the run at most
// sim::max_in_flight ahead of its last replication handed on) takes from
// that parallelism, and the estimate of what is left follows. Thread-safe:
// the run's threads and sink report, a display thread reads.
class ProgressTracker {
 public:
  // The share of the replications running taken as done when one is done:
  // a thread's replication is anywhere from begun to done, and the one
  // just done has made way for a new one.
  static constexpr double in_flight_done = 0.5;

  // `workers`: the threads the replications run on, every rank's.
  ProgressTracker(std::vector<CellWork> cells, std::uint64_t workers);

  // A replication of `cell` done at `seconds`, having taken `used`: in any
  // order (sim::RunOptions::timed).
  void finished(std::size_t cell, double seconds, const sim::TimeUsed& used);
  // A replication of `cell` handed on, in the run's order.
  void handed_on(std::size_t cell);

  struct Estimate {
    std::uint64_t done = 0;
    std::uint64_t total = 0;
    std::optional<double> remaining;  // seconds; none before a replication is done
    std::size_t cell = 0;  // the cell being handed on: of the last replication handed on
  };
  Estimate at(double seconds) const;

  const std::vector<CellWork>& cells() const { return cells_; }

 private:
  // Replications done and what they took: wall seconds, and units of
  // estimated cost.
  struct Measured {
    double seconds = 0.0;
    double cost = 0.0;
    std::uint64_t replications = 0;
    void add(double s, double c) {
      seconds += s;
      cost += c;
      ++replications;
    }
    double rate() const { return seconds / cost; }  // seconds per unit
  };

  // Wall seconds per replication of each cell, as the rest is priced.
  std::vector<double> seconds_per_replication() const;

  std::vector<CellWork> cells_;
  std::vector<std::size_t> group_of_;      // by cell: its algorithm on its game size
  std::vector<std::size_t> algorithm_of_;  // by group
  std::vector<bool> modelled_;             // by algorithm
  std::uint64_t workers_;
  std::uint64_t total_ = 0;
  std::uint64_t kept_ = 0;  // by earlier runs

  mutable std::mutex mutex_;
  std::vector<Measured> by_cell_, by_group_, by_algorithm_;
  Measured run_;               // every replication done by this run
  double run_cpu_ = 0.0;       // and their processor seconds
  double last_ = 0.0;          // when the last one was done
  std::uint64_t handed_ = 0;   // replications handed on by this run
  std::size_t current_ = 0;    // the cell of the last one
};

// Progress (done/total replications, share of the estimated time, ETA, the
// cell being handed on) drawn on stderr, or reported to `report`, by its own
// thread while a run goes on, every `period` (by default the style's: 250 ms
// redrawn or reported, 60 s logged). A run shorter than one period logs
// nothing; a reported one is reported once more as it ends.
class ProgressDisplay {
 public:
  // `workers` as ProgressTracker takes it; `report` for the reported style.
  ProgressDisplay(std::vector<CellWork> cells, std::uint64_t workers, ProgressStyle style,
                  std::chrono::milliseconds period = {}, ProgressCallback report = {});
  ~ProgressDisplay();  // stops (and clears a redrawn line)

  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  // A replication of `cell` done, having taken `used`, in any order and
  // from any thread (sim::RunOptions::timed).
  void finished(std::size_t cell, const sim::TimeUsed& used);
  // A replication of `cell` handed on: the run's sink, in the run's order.
  void handed_on(std::size_t cell);

 private:
  double seconds() const;
  ProgressReport now() const;
  void draw() const;

  ProgressTracker tracker_;
  ProgressStyle style_;
  ProgressCallback report_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

// A remaining time as a person reads it: "19s", "12m05s", "3h02m".
std::string duration_text(double seconds);

// A logged display's line: "pfmab: 365/7400 replications  4.9% done  ETA
// 17m03s  cell 5/220: pf-alloc alpha 0.25 C 1 movielens_10x40".
std::string logged_line(const ProgressReport& report);

// A redrawn display's line in `width` columns: "[=       ] 365/7400  ETA
// 17m03s  cell 5/220: ...", what does not fit left out, the least useful
// first (the bar, the cell's number, the end of its name).
std::string redrawn_line(const ProgressReport& report, std::size_t width);

}  // namespace pfmab::io
