#pragma once

#include <atomic>
#include <cstddef>

namespace pfmab::sim {

// A barrier that nobody waits at: each of `parties` tasks calls arrive() once
// per round, and exactly one of them, the last to arrive, gets true and runs
// what follows the round (the server step). The acquire-release count makes
// every other party's writes before its arrival visible to that last one.
// No mutex, no blocking, no spinning: M tasks finish on any number of threads.
class LastArrivalBarrier {
 public:
  explicit LastArrivalBarrier(std::size_t parties) : parties_(parties), remaining_(parties) {}

  // Re-arms the barrier for the next round before returning true, so the
  // winner may start the next round's tasks at once.
  bool arrive() noexcept {
    if (remaining_.fetch_sub(1, std::memory_order_acq_rel) != 1) return false;
    remaining_.store(parties_, std::memory_order_relaxed);
    return true;
  }

 private:
  std::size_t parties_;
  std::atomic<std::size_t> remaining_;
};

}  // namespace pfmab::sim
