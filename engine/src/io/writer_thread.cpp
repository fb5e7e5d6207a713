#include "pfmab/io/writer_thread.hpp"

#include <pthread.h>
#include <time.h>

#include "io/hdf5.hpp"

namespace pfmab::io {

WriterThread::WriterThread(ResultsWriter& writer) : writer_(writer) {
  for (std::size_t c = 0; c < writer.cells(); ++c) handed_.push_back(writer.done(c));
  for (auto& block : pool_) free_.push(&block);
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "pfmab-writer");  // as top -H and perf show it
    h5::silence_errors();  // HDF5 keeps it per thread
    for (RowBlock* block = nullptr;;) {
      full_.pop(block);
      if (block == nullptr) break;
      // after an error, keep taking blocks so that push() never blocks forever
      if (!failed_.load(std::memory_order_relaxed)) {
        try {
          writer_.append(*block);
        } catch (...) {
          error_ = std::current_exception();
          failed_.store(true, std::memory_order_release);
        }
      }
      free_.push(block);
    }
    timespec used{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &used);
    cpu_seconds_ = static_cast<double>(used.tv_sec) + 1e-9 * static_cast<double>(used.tv_nsec);
  });
}

WriterThread::~WriterThread() {
  if (!thread_.joinable()) return;
  hand_over();
  full_.push(nullptr);
  thread_.join();
}

void WriterThread::push(std::size_t cell, const sim::ReplicationResult& result) {
  // A failed write (a full disk) ends the run now, not after its last
  // replication.
  if (failed_.load(std::memory_order_acquire)) std::rethrow_exception(error_);
  const auto now = std::chrono::steady_clock::now();
  if (filling_ && filling_->cell != cell) hand_over();
  if (!filling_) {
    free_.pop(filling_);
    filling_->reset(cell, writer_.checkpoints(cell), writer_.clients(cell));
    limit_ = writer_.rows_to_chunk_end(cell, handed_[cell]);
    started_ = now;
  }
  filling_->append(result);
  ++handed_[cell];
  if (filling_->rows == limit_ || now - started_ >= max_wait) hand_over();
}

void WriterThread::hand_over() {
  if (!filling_) return;
  full_.push(filling_);
  filling_ = nullptr;
}

void WriterThread::finish() {
  hand_over();
  full_.push(nullptr);
  thread_.join();
  if (error_) std::rethrow_exception(error_);
}

}  // namespace pfmab::io
