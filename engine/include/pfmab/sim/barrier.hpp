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
  explicit LastArrivalBarrier(std::size_t parties = 0) : parties_(parties), remaining_(parties) {}

  // Sets the parties of the next round (a round of the participants of a
  // phase). Called only between rounds, by the thread that then starts the
  // next round's tasks (starting a task publishes the count to it).
  void arm(std::size_t parties) noexcept {
    parties_ = parties;
    remaining_.store(parties, std::memory_order_relaxed);
  }

  // Re-arms the barrier for a next round of as many parties before returning
  // true, so the winner may start it at once.
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
