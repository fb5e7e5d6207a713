#pragma once

// The large game the C* solve and pf-alloc are timed on: M clients, K arms,
// means uniform on [0, 1] from std::mt19937_64 (whose sequence the standard
// fixes, so it is the same game everywhere), Gaussian rewards, sigma = 1.
#include <cstdint>
#include <random>
#include <vector>

#include "pfmab/model/instance.hpp"
#include "pfmab/model/means_table.hpp"

namespace pfmab::bench {

inline model::Instance random_game(std::size_t clients, std::size_t arms, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mean(0.0, 1.0);
  model::MeansTable table;
  table.rows.assign(clients, std::vector<double>(arms));
  for (auto& row : table.rows) {
    for (auto& x : row) x = mean(rng);
  }
  table.row_origin.assign(clients, "random");
  return model::Instance(table, {});
}

}  // namespace pfmab::bench
