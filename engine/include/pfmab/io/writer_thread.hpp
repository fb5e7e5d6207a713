#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

#include <oneapi/tbb/concurrent_queue.h>

#include "pfmab/io/results_file.hpp"
#include "pfmab/io/row_block.hpp"
#include "pfmab/sim/replication.hpp"

namespace pfmab::io {

// The one thread that calls HDF5 during a run, fed by the run's sink: a slow
// write or flush never stalls the replications (only a full queue does),
// and HDF5 is never called from two threads at once.
//
// Results are handed over in blocks of rows, not one by one: every
// hand-over wakes the writer, and on a machine with as many workers as cores
// each wake-up preempts a worker (one per result cost a run of 10,000
// replications of 0.1 ms on 2 cores about 5-10%: bench/README.md, "Results
// pipeline"). The sink copies each result into a block, so the result's
// memory is freed by the thread that allocated it, and a fixed set of blocks
// goes round between the sink and the writer: in a steady run, handing over
// allocates nothing.
class WriterThread {
 public:
  explicit WriterThread(ResultsWriter& writer);
  ~WriterThread();  // finishes if finish() was not called
  WriterThread(const WriterThread&) = delete;
  WriterThread& operator=(const WriterThread&) = delete;

  // Queues a result, the next replication of `cell`; called by one thread at
  // a time (the run's in-order sink). A block goes to the writer when it
  // reaches a chunk boundary of the file or holds a result older than
  // `max_wait` (the writer then holds its rows until their chunk is
  // complete: ResultsWriter::append); blocks while every block waits to be
  // written. Rethrows the writer's error once one has happened.
  void push(std::size_t cell, const sim::ReplicationResult& result);
  // Waits until every queued result is appended; rethrows a writer error.
  void finish();
  // The processor time the writer thread used, once finished (what writing
  // costs a run whose workers use every core: bench/README.md).
  double cpu_seconds() const { return cpu_seconds_; }

 private:
  static constexpr std::size_t blocks = 5;  // 4 waiting and 1 filling: bounds the memory held
  static constexpr auto max_wait = std::chrono::milliseconds(250);

  void hand_over();

  ResultsWriter& writer_;
  std::array<RowBlock, blocks> pool_;
  tbb::concurrent_bounded_queue<RowBlock*> free_, full_;  // nullptr in full_: the end
  RowBlock* filling_ = nullptr;
  std::size_t limit_ = 0;              // rows that end filling_ on a chunk boundary
  std::vector<std::uint64_t> handed_;  // per cell: rows queued, from the writer's done()
  std::chrono::steady_clock::time_point started_;  // of filling_
  std::exception_ptr error_;       // set by the writer thread, then failed_
  std::atomic<bool> failed_{false};
  double cpu_seconds_ = 0.0;
  std::thread thread_;
};

}  // namespace pfmab::io
