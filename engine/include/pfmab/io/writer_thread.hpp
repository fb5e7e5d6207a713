#pragma once

#include <chrono>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

#include <oneapi/tbb/concurrent_queue.h>

#include "pfmab/io/results_file.hpp"
#include "pfmab/sim/replication.hpp"

namespace pfmab::io {

// The one thread that calls HDF5 during a run, fed by the workers through a
// bounded queue: a slow write or flush never stalls the replications (only a
// full queue does), and HDF5 is never called from two threads at once.
//
// Results are handed over in batches, not one by one: every hand-over wakes
// the writer, and on a machine with as many workers as cores each wake-up
// preempts a worker. One per result cost a run of 10,000 replications of
// 0.1 ms on 2 cores about 5-10% (bench/README.md, "Results pipeline").
class WriterThread {
 public:
  explicit WriterThread(ResultsWriter& writer);
  ~WriterThread();  // finishes if finish() was not called
  WriterThread(const WriterThread&) = delete;
  WriterThread& operator=(const WriterThread&) = delete;

  // Queues a result; called by one thread at a time (the run's in-order
  // sink). The batch goes to the writer when it is full or when it holds a
  // result older than `max_wait`; blocks while `capacity` batches wait.
  void push(std::size_t cell, sim::ReplicationResult result);
  // Waits until every queued result is appended; rethrows a writer error.
  void finish();

 private:
  static constexpr std::size_t batch_size = 256;  // ResultsWriter's own write block
  static constexpr std::ptrdiff_t capacity = 4;   // batches: bounds the memory held
  static constexpr auto max_wait = std::chrono::milliseconds(250);
  struct Item {
    std::size_t cell = 0;
    sim::ReplicationResult result;
  };
  using Batch = std::vector<Item>;  // empty: the last one

  void hand_over();

  ResultsWriter& writer_;
  tbb::concurrent_bounded_queue<Batch> queue_;
  Batch batch_;
  std::chrono::steady_clock::time_point batch_started_;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace pfmab::io
