#pragma once

// What every slot-by-slot baseline (local-ucb, centralized-ucb and the
// KL-aware ones) shares: the sim::Algorithm around its replication, the
// argmax that breaks ties to the lowest arm, and the keys it has no use for.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/sim/algorithm.hpp"
#include "pfmab/sim/cell.hpp"

namespace pfmab::algorithms {

// The arm with the largest of `values[0, arms)`, lowest index on ties. Max
// is exact in any order, so the vectorised maximum finds the same arm a scan
// would.
inline std::uint32_t first_argmax(const double* values, std::size_t arms) {
  double best = values[0];
#pragma omp simd reduction(max : best)
  for (std::size_t k = 0; k < arms; ++k) best = std::max(best, values[k]);
  std::uint32_t arm = 0;
  while (values[arm] != best) ++arm;
  return arm;
}

// Every client's choices of a replication of `cell`: M T K, what a
// per-arm cost of a slot-by-slot algorithm multiplies.
inline double client_slot_arms(const sim::Cell& cell) {
  return static_cast<double>(cell.instance().clients()) * static_cast<double>(cell.horizon()) *
         static_cast<double>(cell.instance().arms());
}

// A slot-by-slot algorithm without options: its replication is `play`
// (sim::play_apart or sim::play_together of its clients), `refusal` says
// why it cannot run on a reward family (sim::Algorithm::refuses), and
// `own_cost`, if any, what its choices cost beyond a UCB index's
// (sim::Algorithm::planning_cost).
template <sim::ReplicationResult (*play)(const sim::Cell&, std::uint64_t, std::uint64_t,
                                         const StopToken&),
          std::string (*refusal)(const families::RewardFamily&),
          double (*own_cost)(const sim::Cell&) = nullptr>
class SlotBySlotBaseline final : public sim::Algorithm {
 public:
  explicit SlotBySlotBaseline(std::string_view name) : name_(name) {}
  std::string_view name() const override { return name_; }
  sim::Protocol protocol() const override { return sim::Protocol::slot_by_slot; }
  std::string refuses(const families::RewardFamily& rewards) const override {
    return refusal(rewards);
  }
  double planning_cost(const sim::Cell& cell) const override {
    if constexpr (own_cost == nullptr) {
      return 0.0;
    } else {
      return own_cost(cell);
    }
  }
  sim::ReplicationResult replicate(const sim::Cell& cell, std::uint64_t seed,
                                   std::uint64_t replication,
                                   const StopToken& stop) const override {
    return play(cell, seed, replication, stop);
  }

 private:
  std::string_view name_;
};

// What the slot-by-slot baselines have no use for: they have no phases and
// no exchanges, and draw every reward (sim::Cell::drawn_fidelity); the last
// only for the local ones, which play their own rewards only.
inline constexpr IgnoredKey kSlotBySlotIgnores[] = {
    {"comm_cost", "it never pays for communication"},
    {"mode", "it draws every reward whatever the mode"},
    {"participation.probability", "every client plays every slot"},
    {"participation.clients", "every client plays every slot"},
    {"participation.aggregate", "every client plays every slot"},
    {"algorithm.alpha", "it ignores alpha"},
};
inline constexpr std::span<const IgnoredKey> kLocalIgnores(kSlotBySlotIgnores);
inline constexpr auto kCentralizedIgnores = kLocalIgnores.first(std::size(kSlotBySlotIgnores) - 1);

}  // namespace pfmab::algorithms
