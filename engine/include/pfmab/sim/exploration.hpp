#pragma once

#include <cstddef>
#include <span>

#include <pcg_random.hpp>

#include "pfmab/model/instance.hpp"
#include "pfmab/sim/trajectory.hpp"

namespace pfmab::sim {

// Per-pull fidelity: client `client` pulls run.arms round robin for
// run.rounds cycles, drawing every reward from `stream` in slot order;
// sums[i] receives the reward sum of run.arms[i] (run.rounds pulls).
void explore_per_pull(const model::Instance& instance, std::size_t client, pcg32& stream,
                      const RoundRobin& run, std::span<double> sums);

}  // namespace pfmab::sim
