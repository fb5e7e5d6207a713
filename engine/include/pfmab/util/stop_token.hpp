#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace pfmab {

// Thrown out of work that a stop request interrupted. A replication is
// discarded by the runner (a continued run draws it again from its own
// streams, so the results are those of an uninterrupted run); the set-up
// (the bounds, the output's creation) leaves nothing behind.
struct Interrupted {};

// A stop request (SIGINT, SIGTERM, Python's KeyboardInterrupt) as the work
// sees it. Loops whose length grows with the input (slots, pulls, phases,
// the C* solve's Newton steps, the output's cells) poll it, so that a stop
// takes effect within about a millisecond wherever the run is; a poll is one
// relaxed load.
class StopToken {
 public:
  StopToken() = default;  // never requested
  explicit StopToken(const std::atomic<bool>* flag) : flag_(flag) {}

  bool requested() const { return flag_ && flag_->load(std::memory_order_relaxed); }
  void throw_if_requested() const {
    if (requested()) throw Interrupted{};
  }
  // For the i-th step of a loop: looks once every 2^16 steps.
  void poll(std::uint64_t i) const {
    if ((i & 0xFFFF) == 0) throw_if_requested();
  }

  // body(first, last) over [0, count) in chunks of `chunk` steps, with a look
  // before each: a tight inner loop stays free of the check.
  template <class Body>
  void in_chunks(std::uint64_t count, std::uint64_t chunk, Body&& body) const {
    for (std::uint64_t first = 0; first < count;) {
      throw_if_requested();
      const std::uint64_t last = count - first > chunk ? first + chunk : count;
      body(first, last);
      first = last;
    }
  }

 private:
  const std::atomic<bool>* flag_ = nullptr;
};

}  // namespace pfmab
