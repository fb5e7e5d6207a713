#include "pfmab/sim/slot_by_slot.hpp"

#include <algorithm>

namespace pfmab::sim {

ReplicationResult slot_by_slot_result(const Cell& cell, Series series,
                                      std::span<const std::uint64_t> final_counts) {
  const std::size_t clients = cell.instance().clients(), arms = cell.instance().arms();
  ReplicationResult r;
  r.series = std::move(series);
  r.exploration_pulls = cell.horizon() * clients;  // every reward is drawn
  for (std::size_t m = 0; m < clients; ++m) {
    const auto row = final_counts.subspan(m * arms, arms);
    const auto arm =
        static_cast<std::size_t>(std::max_element(row.begin(), row.end()) - row.begin());
    r.fixed_arm.push_back(static_cast<std::int32_t>(arm));
    r.fixed_optimal.push_back(cell.measured().gap(m, arm) == 0.0);
  }
  return r;
}

}  // namespace pfmab::sim
