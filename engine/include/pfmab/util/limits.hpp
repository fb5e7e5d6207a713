#pragma once

#include <cstdint>
#include <string_view>

namespace pfmab::limits {

// The accepted range of every number pfmab reads, declared once; each is
// explained in docs/limits.md. Together they keep every derived quantity
// (phase lengths, pull counts, reward sums, regret) finite, exact where it is
// a count, and free of NaN.

// An interval of real values; `low_open` excludes `low` itself.
struct RealRange {
  double low;
  double high;
  bool low_open;
  std::string_view why;
};

// Throws UserError "WHAT = VALUE is outside RANGE (WHY)" unless `value` lies
// in `range` (NaN never does).
void check(double value, std::string_view what, const RealRange& range);

inline constexpr RealRange alpha{0.0, 1.0, false, "it weighs local against global rewards"};
// Means and sigma up to 1e9 keep a sum of 2^62 rewards, and the regret of
// 2^62 pulls, below 1e30: finite, far from overflow. Rescale larger rewards.
inline constexpr RealRange mean{
    -1e9, 1e9, false, "a mean beyond 1e9 in size overflows sums of 2^62 rewards: rescale them"};
inline constexpr RealRange sigma{
    0.0, 1e9, false,
    "a standard deviation; beyond 1e9 it overflows sums of 2^62 rewards: rescale them"};
// C is charged 2 M times a phase, at most M T <= 2^62 times: below 1e28.
inline constexpr RealRange comm_cost{
    0.0, 1e9, false, "a cost per exchange; beyond 1e9 it overflows the regret of 2^62 exchanges"};
// lambda and the schedule factor: at least 1e-9 so that f(p) times the
// smallest exploration weight stays a normal number (every phase then pulls
// at least once: no empty phases); at most 2^62, the longest horizon (a
// longer f(p) only means one phase cut by the horizon).
inline constexpr RealRange schedule_scale{1e-9, 0x1p62, false,
                                          "from 1e-9 (no empty phases) to 2^62 (the longest "
                                          "horizon)"};
// c_B > 0 gives radii in [0, inf], never NaN; above 1e12 no arm is ever
// eliminated within 2^62 slots anyway.
inline constexpr RealRange confidence_constant{
    0.0, 1e12, true, "B_p = sqrt(c_B L / (M F(p))) needs c_B > 0; beyond 1e12 nothing is eliminated"};
inline constexpr RealRange participation{0.0, 1.0, true,
                                         "each client takes part in a phase with probability q"};

// Counts. Every count of slots or pulls is at most M T <= 2^62, exact in an
// unsigned 64-bit integer with room to add two of them.
inline constexpr std::uint64_t max_horizon = std::uint64_t{1} << 62;
inline constexpr std::uint64_t max_pulls = std::uint64_t{1} << 62;  // M T
inline constexpr std::uint64_t max_replications = std::uint64_t{1} << 62;  // per cell, and in all
// A sweep's cells are held in memory (with their means) and each is a group
// of the output file: 10^5 cells take about 0.5 GB.
inline constexpr std::uint64_t max_cells = 100'000;
// Every cell's means are held with it: cells x M x K numbers at most.
inline constexpr std::uint64_t max_sweep_means = 100'000'000;
// Arms are indexed by 32-bit integers, fixed arms stored as signed ones; a
// client's statistics are a few numbers per arm, per running replication.
inline constexpr std::uint64_t max_arms = 1'000'000;
inline constexpr std::uint64_t max_clients = 1'000'000;
inline constexpr std::uint64_t max_instance_size = 10'000'000;  // M K
inline constexpr std::uint64_t max_checkpoint_points = 100'000;
// Worker threads beyond this many per core only add memory (a stack each)
// and contention.
inline constexpr unsigned threads_per_core = 64;

// The most worker threads accepted on this machine: threads_per_core times
// the cores this process may use.
unsigned max_threads();

}  // namespace pfmab::limits
