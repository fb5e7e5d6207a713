#include "pfmab/io/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace pfmab::io {

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

ProgressDisplay::ProgressDisplay(const std::atomic<std::uint64_t>& done, std::uint64_t total,
                                 bool enabled)
    : done_(done), total_(total), start_(std::chrono::steady_clock::now()) {
  if (!enabled) return;
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; })) {
      draw();
    }
    fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
  });
}

ProgressDisplay::~ProgressDisplay() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void ProgressDisplay::draw() const {
  constexpr int width = 30;
  const auto done = done_.load(std::memory_order_relaxed);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = seconds > 0.0 ? static_cast<double>(done) / seconds : 0.0;
  const int filled = static_cast<int>(width * done / std::max<std::uint64_t>(total_, 1));
  const std::string eta =
      rate > 0.0 ? fmt::format("ETA {:.0f}s", static_cast<double>(total_ - done) / rate) : "ETA -";
  fmt::print(stderr, "\r[{:=<{}}{:<{}}] {}/{} replications  {:.1f}/s  {}\033[K", "", filled, "",
             width - filled, done, total_, rate, eta);
  std::fflush(stderr);
}

}  // namespace pfmab::io
