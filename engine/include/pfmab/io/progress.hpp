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

#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/shard.hpp"

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
  // "pf-alloc alpha 0.5 C 10 T 1e6 movielens_10x40" at most.
  std::string name;
  // The cells of one algorithm and game size ("10x40", M x K) share a
  // measured correction of their estimated costs.
  std::string algorithm;
  std::string game;
  double cost = 1.0;  // of one replication, estimated: positive, in one unit for all cells
  std::uint64_t replications = 0;  // that this run makes
  std::uint64_t kept = 0;          // kept from an earlier run (a continued output): done, untimed
};

// The cells of a run that makes the replications `ranges` of them, with
// their estimated costs (sim::replication_cost) and the replications `kept`
// of each from an earlier run (none if empty). A cell's name gives the
// algorithm, alpha, C (where it pays for communication), T and the means
// file's name where they differ among the cells, all of them if none does.
std::vector<CellWork> cell_work(std::span<const sim::Cell> cells,
                                std::span<const sim::ReplicationRange> ranges,
                                std::span<const std::uint64_t> kept = {});

// How far a run is and how long the rest should take: the estimated cost of
// what is left times the seconds per unit of estimated cost measured so far,
// by algorithm and game size. Times are seconds since the run started, on
// any clock.
//
// Replications are handed on in (cell, replication) order, but up to
// `in_flight` of them run at once (sim::max_in_flight), so the time between
// two hand-ons is not the cost of the second: at a cheap cell's last
// replication, the costly ones after it have been running for a while, and
// a replication done may wait for an earlier one, or for a thread to hand it
// on. So the work behind the run at a hand-on is the replications handed on
// and `in_flight_done` of the `in_flight` after them; the time since the
// hand-on before is shared among the groups of cells (an algorithm on a
// game size) by how much of that work each gained; and each group's seconds
// per unit of cost is its time over its work. What the work in flight takes
// after the last hand-on is subtracted as it passes. (No cell's own rate is
// measured: its first and last replications share their time with the
// cells around it, and on the runs measured a rate by cell came no closer.)
//
// A group not yet begun takes its algorithm's rate on the game sizes it has
// run; an algorithm not yet begun takes the rate of the begun algorithm
// that holds the middle of their work measured (in units of estimated
// cost), never their pooled time over their pooled work: an algorithm the
// estimate misjudges (pf-alloc's solves, before the estimate knew them, by
// 1000 times) then sets its own cells' rate alone, not that of the hours of
// baselines after it, and a cheap one whose replications are mostly
// overhead (pf-ucb's) does not set the rate of costly ones. A group's own rate takes
// over from that as its replications handed on outweigh the `in_flight`:
// the time of its first ones is shared with the cells before them, so its
// first rate is the run's at the hand-over, not its own. Thread-safe: the
// run's sink reports, a display thread reads.
class ProgressTracker {
 public:
  // The share of the replications in flight taken as done. Measured: with
  // 3/4 the estimate came closest on the sweeps of docs/command-line.md
  // (with 0, up to 2.7 times the time left, a tenth into a sweep of T up to
  // 10^7).
  static constexpr double in_flight_done = 0.75;

  ProgressTracker(std::vector<CellWork> cells, std::uint64_t in_flight);

  // A replication of `cell` handed on at `seconds`.
  void finished(std::size_t cell, double seconds);

  struct Estimate {
    std::uint64_t done = 0;
    std::uint64_t total = 0;
    std::optional<double> remaining;  // seconds; none before a replication is done
    std::size_t cell = 0;  // the cell being handed on: the last one with a replication done
  };
  Estimate at(double seconds) const;

  const std::vector<CellWork>& cells() const { return cells_; }

 private:
  // What is known of one group's cells (an algorithm on a game size), in
  // units of estimated cost.
  struct GroupWork {
    std::size_t algorithm = 0;
    double total = 0.0;      // every replication of the run
    double done = 0.0;       // handed on
    double in_flight = 0.0;  // in flight
    double charged = 0.0;    // the work behind the run at the last hand-on
    double seconds = 0.0;    // the time charged for it
    std::uint64_t handed = 0;  // replications handed on
    double behind() const { return done + in_flight_done * in_flight; }
  };

  // Takes the next replication of the run into the flight, if there is one.
  void take_off();
  // Seconds per unit of estimated cost of each group, as at() uses them.
  std::vector<double> rates() const;

  std::vector<CellWork> cells_;
  std::vector<std::size_t> group_of_;  // by cell
  std::size_t algorithms_ = 0;
  std::uint64_t in_flight_;
  std::uint64_t total_ = 0;

  mutable std::mutex mutex_;
  std::vector<GroupWork> groups_;
  std::uint64_t done_ = 0;  // by this run
  std::uint64_t kept_ = 0;  // by earlier ones
  std::uint64_t flying_ = 0;
  // The last replication in flight: the `taken_`-th of cell `taken_cell_`.
  std::size_t taken_cell_ = 0;
  std::uint64_t taken_ = 0;
  double last_ = 0.0;  // when the last replication was handed on
  std::size_t current_ = 0;
};

// Progress (done/total replications, share of the estimated time, ETA, the
// cell being handed on) drawn on stderr, or reported to `report`, by its own
// thread while a run goes on, every `period` (by default the style's: 250 ms
// redrawn or reported, 60 s logged). A run shorter than one period logs
// nothing; a reported one is reported once more as it ends.
class ProgressDisplay {
 public:
  // `in_flight` as ProgressTracker takes it; `report` for the reported style.
  ProgressDisplay(std::vector<CellWork> cells, std::uint64_t in_flight, ProgressStyle style,
                  std::chrono::milliseconds period = {}, ProgressCallback report = {});
  ~ProgressDisplay();  // stops (and clears a redrawn line)

  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  // A replication of `cell` handed on: the run's sink, in the run's order.
  void finished(std::size_t cell);

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
