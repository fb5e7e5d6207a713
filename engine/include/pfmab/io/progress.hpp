#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace pfmab::io {

// A progress line on stderr (done/total, rate, ETA), redrawn four times a
// second by its own thread while a run goes on. Silent unless enabled; the
// caller enables it only when stderr is a terminal.
class ProgressDisplay {
 public:
  ProgressDisplay(const std::atomic<std::uint64_t>& done, std::uint64_t total, bool enabled);
  ~ProgressDisplay();  // stops and clears the line

  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

 private:
  void draw() const;

  const std::atomic<std::uint64_t>& done_;
  std::uint64_t total_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

// True when stderr is a terminal.
bool stderr_is_terminal();

}  // namespace pfmab::io
