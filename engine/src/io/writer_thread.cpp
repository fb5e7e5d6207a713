#include "pfmab/io/writer_thread.hpp"

#include <oneapi/tbb/info.h>
#include <oneapi/tbb/task_arena.h>
#include <pthread.h>

#include "pfmab/sim/time_used.hpp"

#include "io/chunk_filter.hpp"
#include "io/hdf5.hpp"

namespace pfmab::io {

WriterThread::WriterThread(ResultsWriter& writer) : writer_(writer) {
  for (std::size_t c = 0; c < writer.cells(); ++c) handed_.push_back(writer.done(c));
  for (auto& block : pool_) free_.push(&block);
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "pfmab-writer");  // as top -H and perf show it
    const sim::Stopwatch used;
    h5::silence_errors();  // HDF5 keeps it per thread
    for (Handed* block = nullptr;;) {
      full_.pop(block);
      if (block == nullptr) break;
      // after an error, keep taking blocks so that push() never blocks forever
      if (!failed_.load(std::memory_order_relaxed)) {
        try {
          write(*block);
        } catch (...) {
          error_ = std::current_exception();
          failed_.store(true, std::memory_order_release);
        }
      }
      free_.push(block);
    }
    cpu_seconds_ = used.elapsed().cpu_seconds;
  });
}

WriterThread::~WriterThread() {
  // a run settles its offers in its arena; without one, none was made
  offers_.wait();
  if (!thread_.joinable()) return;
  hand_over();
  full_.push(nullptr);
  thread_.join();
}

bool WriterThread::Handed::filter_if_unclaimed(std::uint64_t generation) {
  auto expected = generation << 2 | whole;
  if (!state.compare_exchange_strong(expected, generation << 2 | filtering,
                                     std::memory_order_acquire)) {
    return false;
  }
  try {
    filter_chunk(rows, chunk_rows, stored);
  } catch (...) {
    state.store(generation << 2 | whole, std::memory_order_release);  // for the writer to retry
    state.notify_all();
    throw;
  }
  state.store(generation << 2 | filtered, std::memory_order_release);
  state.notify_all();
  return true;
}

void WriterThread::write(Handed& block) {
  const auto generation = block.generation();
  if ((block.state.load(std::memory_order_acquire) & 3) == Handed::part) {
    return writer_.append(block.rows);
  }
  for (;;) {
    block.filter_if_unclaimed(generation);  // unless a worker began it
    const auto state = block.state.load(std::memory_order_acquire);
    if ((state & 3) == Handed::filtered) break;
    // a worker is filtering it; it goes back to `whole` if the worker fails
    if ((state & 3) == Handed::filtering) block.state.wait(state, std::memory_order_acquire);
  }
  writer_.append(block.rows, block.stored);
}

void WriterThread::push(std::size_t cell, const sim::ReplicationResult& result) {
  // A failed write (a full disk) ends the run now, not after its last
  // replication.
  if (failed_.load(std::memory_order_acquire)) std::rethrow_exception(error_);
  const auto now = std::chrono::steady_clock::now();
  if (filling_ && filling_->rows.cell != cell) hand_over();
  if (!filling_) {
    free_.pop(filling_);
    filling_->rows.reset(cell, writer_.checkpoints(cell), writer_.clients(cell));
    first_ = handed_[cell];
    limit_ = writer_.rows_to_chunk_end(cell, first_);
    started_ = now;
  }
  filling_->rows.append(result);
  ++handed_[cell];
  if (filling_->rows.rows == limit_ || now - started_ >= max_wait) hand_over();
}

void WriterThread::hand_over() {
  if (!filling_) return;
  auto& block = *filling_;
  const auto cell = block.rows.cell;
  block.chunk_rows = writer_.chunk_rows(cell);
  const bool whole =
      first_ % block.chunk_rows == 0 && writer_.completes_chunk(cell, first_ + block.rows.rows);
  const auto generation = block.generation() + 1;
  block.state.store(generation << 2 | (whole ? Handed::whole : Handed::part),
                    std::memory_order_release);
  if (whole && offer()) {
    // enqueued, not spawned: a worker takes it when free, first come first
    // served, not before the replications its own thread has begun
    tbb::this_task_arena::enqueue(offers_.defer([offered = &block, generation] {
      try {
        offered->filter_if_unclaimed(generation);
      } catch (...) {
        // the writer filters it again, and reports the error
      }
    }));
  }
  full_.push(filling_);
  filling_ = nullptr;
}

bool WriterThread::offer() const {
  // A sink outside any task arena (rank 0's coordinator in an MPI run, a
  // test) has no workers to offer to.
  if (tbb::this_task_arena::current_thread_index() == tbb::task_arena::not_initialized) {
    return false;
  }
  // Where every core runs a worker, the writer's work is taken from theirs
  // anyway; where one is free, the writer filters there, unless it has
  // fallen behind (blocks wait for it).
  return tbb::this_task_arena::max_concurrency() >= tbb::info::default_concurrency() ||
         full_.size() > 0;
}

void WriterThread::settle() { offers_.wait(); }

void WriterThread::finish() {
  hand_over();
  full_.push(nullptr);
  thread_.join();
  if (error_) std::rethrow_exception(error_);
}

}  // namespace pfmab::io
