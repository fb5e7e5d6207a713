#pragma once

#include <cstddef>
#include <exception>
#include <thread>
#include <utility>

#include <oneapi/tbb/concurrent_queue.h>

#include "pfmab/io/results_file.hpp"
#include "pfmab/sim/replication.hpp"

namespace pfmab::io {

// The one thread that calls HDF5 during a run, fed by the workers through a
// bounded queue: a slow write or flush never stalls the replications (only a
// full queue does), and HDF5 is never called from two threads at once.
class WriterThread {
 public:
  explicit WriterThread(ResultsWriter& writer);
  ~WriterThread();  // finishes if finish() was not called
  WriterThread(const WriterThread&) = delete;
  WriterThread& operator=(const WriterThread&) = delete;

  // Queues a result (blocks while `capacity` results wait).
  void push(std::size_t cell, sim::ReplicationResult result);
  // Waits until every queued result is appended; rethrows a writer error.
  void finish();

 private:
  static constexpr std::ptrdiff_t capacity = 1024;  // bounds the memory held
  struct Item {
    std::size_t cell = 0;
    sim::ReplicationResult result;
    bool last = false;
  };

  ResultsWriter& writer_;
  tbb::concurrent_bounded_queue<Item> queue_;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace pfmab::io
