#pragma once

#include <chrono>
#include <cstdint>

namespace pfmab::sim {

// The time replications took to compute, as measured where they ran: what
// an algorithm costs (docs/outputs.md, "time_used"). It varies from run to
// run and machine to machine, so it is in no digest and no row.
struct TimeUsed {
  // Processor time of the thread that ran the replications (its own work:
  // a client's task another thread took while idle is not counted).
  double cpu_seconds = 0.0;
  double wall_seconds = 0.0;  // elapsed, from start to finish of each
  // The replications the seconds cover: 0 where nothing was measured (rows
  // read back from a file, or an output written before pfmab recorded it).
  std::uint64_t replications = 0;

  TimeUsed& operator+=(const TimeUsed& other) {
    cpu_seconds += other.cpu_seconds;
    wall_seconds += other.wall_seconds;
    replications += other.replications;
    return *this;
  }
  // Per replication, NaN where none was measured.
  double cpu_per_replication() const;
  double wall_per_replication() const;
};

// Measures one replication on the calling thread, from construction to
// elapsed().
class Stopwatch {
 public:
  Stopwatch();
  TimeUsed elapsed() const;  // with replications = 1

 private:
  double cpu_start_;
  std::chrono::steady_clock::time_point wall_start_;
};

}  // namespace pfmab::sim
