#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pfmab::sim {

// The slots at which a replication's series are recorded: `log_points`
// log-spaced and `linear_points` evenly spaced counts of elapsed slots in
// [1, T], merged, sorted, without repeats, always ending with T. A value c
// means "after the first c slots".
std::vector<std::uint64_t> checkpoint_grid(std::uint64_t horizon, std::size_t log_points = 40,
                                           std::size_t linear_points = 20);

}  // namespace pfmab::sim
