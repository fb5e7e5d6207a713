#include "pfmab/io/writer_thread.hpp"

#include <utility>

#include <pthread.h>

namespace pfmab::io {

WriterThread::WriterThread(ResultsWriter& writer) : writer_(writer) {
  queue_.set_capacity(capacity);
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "pfmab-writer");  // as top -H and perf show it
    for (Batch batch;;) {
      queue_.pop(batch);
      if (batch.empty()) return;
      if (error_) continue;  // keep draining so that push() never blocks forever
      try {
        for (auto& item : batch) writer_.append(item.cell, std::move(item.result));
      } catch (...) {
        error_ = std::current_exception();
      }
    }
  });
}

WriterThread::~WriterThread() {
  if (!thread_.joinable()) return;
  hand_over();
  queue_.push(Batch{});
  thread_.join();
}

void WriterThread::push(std::size_t cell, sim::ReplicationResult result) {
  const auto now = std::chrono::steady_clock::now();
  if (batch_.empty()) batch_started_ = now;
  batch_.push_back(Item{cell, std::move(result)});
  if (batch_.size() >= batch_size || now - batch_started_ >= max_wait) hand_over();
}

void WriterThread::hand_over() {
  if (batch_.empty()) return;
  queue_.push(std::exchange(batch_, Batch{}));
}

void WriterThread::finish() {
  hand_over();
  queue_.push(Batch{});
  thread_.join();
  if (error_) std::rethrow_exception(error_);
}

}  // namespace pfmab::io
