#include "pfmab/io/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

namespace pfmab::io {

ProgressStyle progress_style(bool quiet) {
  if (quiet) return ProgressStyle::none;
  return isatty(STDERR_FILENO) == 1 ? ProgressStyle::redrawn : ProgressStyle::logged;
}

ProgressDisplay::ProgressDisplay(const std::atomic<std::uint64_t>& done, std::uint64_t total,
                                 ProgressStyle style, std::chrono::milliseconds period)
    : done_(done), total_(total), style_(style), start_(std::chrono::steady_clock::now()) {
  if (style == ProgressStyle::none) return;
  if (period.count() == 0) {
    period = style == ProgressStyle::redrawn ? std::chrono::milliseconds(250)
                                             : std::chrono::milliseconds(60'000);
  }
  thread_ = std::thread([this, period] {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, period, [this] { return stop_; })) draw();
    if (style_ == ProgressStyle::redrawn) {
      fmt::print(stderr, "\r\033[K");
      std::fflush(stderr);
    }
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

std::string duration_text(double seconds) {
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s < 100) return fmt::format("{}s", s);
  if (s < 100 * 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s / 60 % 60);
}

void ProgressDisplay::draw() const {
  const auto done = done_.load(std::memory_order_relaxed);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = seconds > 0.0 ? static_cast<double>(done) / seconds : 0.0;
  const std::string eta =
      rate > 0.0 ? "ETA " + duration_text(static_cast<double>(total_ - done) / rate) : "ETA -";
  if (style_ == ProgressStyle::logged) {
    const double percent =
        100.0 * static_cast<double>(done) / static_cast<double>(std::max<std::uint64_t>(total_, 1));
    fmt::print(stderr, "pfmab: {}/{} replications ({:.1f}%)  {:.1f}/s  {}\n", done, total_,
               percent, rate, eta);
  } else {
    constexpr int width = 30;
    const int filled = static_cast<int>(width * done / std::max<std::uint64_t>(total_, 1));
    fmt::print(stderr, "\r[{:=<{}}{:<{}}] {}/{} replications  {:.1f}/s  {}\033[K", "", filled, "",
               width - filled, done, total_, rate, eta);
  }
  std::fflush(stderr);
}

}  // namespace pfmab::io
