#pragma once

#include "pfmab/sim/cell.hpp"

namespace pfmab::sim {

// The expected processor time of one replication of `cell`, in nanoseconds
// of one core of the 2-core machine of bench/README.md, estimated before the
// run from what drives it: M, K, T, the checkpoint grid, the algorithm's
// protocol, the fidelity its rewards are drawn with, and what its own
// planning costs (Algorithm::planning_cost: pf-alloc's solves). Cells of one sweep
// differ in cost by up to 10^5 (a PF-UCB cell in aggregated mode against a
// slot-by-slot baseline at the same T), which is what a progress display
// must know to say how long the rest of a run takes; it rescales these
// estimates by the times it measures (io::ProgressTracker), so mostly their
// ratios matter (before an algorithm of the engine's has run, it takes them
// as they are, in nanoseconds, stretched by the load it sees). Measured on the study of issue 15 and random games from
// 2x100 to 100x20, the estimates are mostly within 30% of the times
// measured (engine/src/sim/cost.cpp says from what, and where not).
double replication_cost(const Cell& cell);

}  // namespace pfmab::sim
