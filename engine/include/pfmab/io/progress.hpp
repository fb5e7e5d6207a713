#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace pfmab::io {

// How a run shows its progress on stderr.
enum class ProgressStyle {
  none,
  redrawn,  // one line redrawn in place four times a second: a terminal
  logged,   // a line of its own once a minute: a batch job's log file
};

// The style for this process's stderr: redrawn on a terminal, logged
// otherwise, none when `quiet`.
ProgressStyle progress_style(bool quiet);

// Progress (done/total, rate, ETA) drawn on stderr by its own thread while a
// run goes on, every `period` (by default the style's: 250 ms redrawn, 60 s
// logged). A run shorter than one period logs nothing.
class ProgressDisplay {
 public:
  ProgressDisplay(const std::atomic<std::uint64_t>& done, std::uint64_t total,
                  ProgressStyle style, std::chrono::milliseconds period = {});
  ~ProgressDisplay();  // stops (and clears a redrawn line)

  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

 private:
  void draw() const;

  const std::atomic<std::uint64_t>& done_;
  std::uint64_t total_;
  ProgressStyle style_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

// A remaining time as a person reads it: "19s", "12m05s", "3h02m".
std::string duration_text(double seconds);

}  // namespace pfmab::io
