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
#include <oneapi/tbb/task_group.h>

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
//
// Filtering a chunk (shuffle and deflate, engine/src/io/chunk_filter.hpp)
// needs no HDF5: a block that is a whole chunk (or a cell's last rows from
// a chunk's start) is offered, when it is handed over, to the run's own
// worker threads (a task enqueued in the caller's task arena), and
// whichever comes first filters it, a worker or the writer when it takes
// the block. The writer thus filters only what the workers have not begun,
// so it does everything while it keeps up with the run, and is left with
// HDF5's calls and the summaries once it falls behind (bench/README.md, "A
// writer that keeps up"). The offers are tasks of a group the run waits
// for in its arena (settle()) before it leaves it: none outlives the run,
// nor is left unrun when the process ends.
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
  // Waits, taking part, until every chunk offered to the run's workers is
  // filtered or found taken: called in the run's arena once its sink has
  // handed on its last result (sim::RunOptions::settle), before the arena's
  // threads go.
  void settle();
  // Waits until every queued result is appended; rethrows a writer error.
  // After settle(), if the sink ran in a task arena.
  void finish();
  // The processor time the writer thread used, once finished (what writing
  // costs a run whose workers use every core: bench/README.md).
  double cpu_seconds() const { return cpu_seconds_; }

 private:
  static constexpr std::size_t blocks = 5;  // 4 waiting and 1 filling: bounds the memory held
  static constexpr auto max_wait = std::chrono::milliseconds(250);

  // A block of rows on its way to the writer, and its chunk as filtered.
  // `state` is the block's generation (one per filling) and its filtering's
  // stage: an offer made for an earlier filling of the block finds another
  // generation and does nothing.
  struct Handed {
    enum Stage : std::uint64_t { whole = 0, filtering = 1, filtered = 2, part = 3 };
    RowBlock rows;
    std::uint64_t chunk_rows = 0;
    std::vector<std::byte> stored;  // the chunk through the filters, once filtered
    std::atomic<std::uint64_t> state{part};
    std::uint64_t generation() const { return state.load(std::memory_order_relaxed) >> 2; }
    // Filters the block if it is a whole chunk of generation `generation`
    // that nobody began to filter; returns whether it did.
    bool filter_if_unclaimed(std::uint64_t generation);
  };

  void hand_over();
  // Whether a whole chunk being handed over is offered to the workers.
  bool offer() const;
  // The block's rows to the writer, filtered first unless that is done or
  // being done.
  void write(Handed& block);

  ResultsWriter& writer_;
  std::array<Handed, blocks> pool_;
  tbb::concurrent_bounded_queue<Handed*> free_, full_;  // nullptr in full_: the end
  Handed* filling_ = nullptr;
  std::uint64_t first_ = 0;            // row of filling_'s first row in its cell
  std::size_t limit_ = 0;              // rows that end filling_ on a chunk boundary
  std::vector<std::uint64_t> handed_;  // per cell: rows queued, from the writer's done()
  std::chrono::steady_clock::time_point started_;  // of filling_
  std::exception_ptr error_;       // set by the writer thread, then failed_
  std::atomic<bool> failed_{false};
  double cpu_seconds_ = 0.0;
  tbb::task_group offers_;  // the chunks offered to the run's workers
  std::thread thread_;
};

}  // namespace pfmab::io
