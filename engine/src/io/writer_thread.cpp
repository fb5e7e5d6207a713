#include "pfmab/io/writer_thread.hpp"

namespace pfmab::io {

WriterThread::WriterThread(ResultsWriter& writer) : writer_(writer) {
  queue_.set_capacity(capacity);
  thread_ = std::thread([this] {
    for (Item item;;) {
      queue_.pop(item);
      if (item.last) return;
      if (error_) continue;  // keep draining so that push() never blocks forever
      try {
        writer_.append(item.cell, std::move(item.result));
      } catch (...) {
        error_ = std::current_exception();
      }
    }
  });
}

WriterThread::~WriterThread() {
  if (!thread_.joinable()) return;
  queue_.push(Item{0, {}, true});
  thread_.join();
}

void WriterThread::push(std::size_t cell, sim::ReplicationResult result) {
  queue_.push(Item{cell, std::move(result), false});
}

void WriterThread::finish() {
  queue_.push(Item{0, {}, true});
  thread_.join();
  if (error_) std::rethrow_exception(error_);
}

}  // namespace pfmab::io
