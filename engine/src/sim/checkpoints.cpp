#include "pfmab/sim/checkpoints.hpp"

#include <algorithm>
#include <cmath>

namespace pfmab::sim {

std::vector<std::uint64_t> checkpoint_grid(std::uint64_t horizon, std::size_t log_points,
                                           std::size_t linear_points) {
  std::vector<std::uint64_t> grid{horizon};
  const double log_t = std::log(static_cast<double>(horizon));
  for (std::size_t i = 1; i <= log_points; ++i) {
    const double c = std::round(std::exp(log_t * static_cast<double>(i) / log_points));
    grid.push_back(std::clamp<std::uint64_t>(static_cast<std::uint64_t>(c), 1, horizon));
  }
  for (std::size_t i = 1; i <= linear_points; ++i) {
    // i * T / n without overflow for T up to 2^63
    const auto c = horizon / linear_points * i + horizon % linear_points * i / linear_points;
    grid.push_back(std::clamp<std::uint64_t>(c, 1, horizon));
  }
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  return grid;
}

}  // namespace pfmab::sim
