#pragma once

#include <cstdint>
#include <vector>

#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/time_used.hpp"
#include "pfmab/sim/trajectory.hpp"
#include "pfmab/util/digest.hpp"
#include "pfmab/util/stop_token.hpp"

namespace pfmab::sim {

// What one replication reports (docs/internals.md, "What a replication reports"). The output of each field
// is declared in kColumns (columns.hpp).
struct ReplicationResult {
  Series series;                            // on the cell's checkpoint grid
  std::uint64_t phases = 0;                 // phases begun within the horizon
  std::uint64_t exploration_pulls = 0;      // rewards drawn (all clients, all phases)
  std::vector<std::int32_t> fixed_arm;      // O_m per client, -1 if never fixed
  std::vector<std::uint8_t> fixed_optimal;  // 1 if O_m is mixed-optimal
  std::int64_t fixation_slot = -1;          // slot count when the last client fixed; -1 if never
  // What computing it took (the runner measures it): no column, not in
  // add_to, so results compare and digest the same on any machine.
  TimeUsed used;

  // Every client fixed a mixed-optimal arm within the horizon.
  bool identified() const;
  // Feeds `digest` every column's values, in kColumns order.
  void add_to(Digest& digest) const;
};

// Runs replication `replication` of `cell` with the cell's algorithm, every
// draw from streams keyed by (seed, cell, replication, client). Blocks the
// calling thread until done (it takes part in the work).
// Throws Interrupted once `stop` is requested (polled within long loops).
ReplicationResult run_replication(const Cell& cell, std::uint64_t seed, std::uint64_t replication,
                                  const StopToken& stop = {});

}  // namespace pfmab::sim
