#include "pfmab/sim/replication.hpp"

#include <algorithm>

#include "pfmab/sim/columns.hpp"

namespace pfmab::sim {

bool ReplicationResult::identified() const {
  return std::all_of(fixed_optimal.begin(), fixed_optimal.end(), [](auto ok) { return ok != 0; });
}

void ReplicationResult::add_to(Digest& digest) const {
  for_each_column([&](const auto& column) { digest.add(column.values(*this)); });
}

ReplicationResult run_replication(const Cell& cell, std::uint64_t seed, std::uint64_t replication,
                                  const StopToken& stop) {
  return cell.algorithm().replicate(cell, seed, replication, stop);
}

}  // namespace pfmab::sim
