#pragma once

// What several test programs build or check the same way.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include "pfmab/algorithms/baselines.hpp"
#include "pfmab/algorithms/kl_ucb.hpp"
#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/algorithms/thompson.hpp"
#include "pfmab/io/experiment.hpp"
#include "pfmab/model/instance.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/sim/columns.hpp"
#include "pfmab/sim/replication.hpp"
#include "pfmab/util/digest.hpp"

#include "run_cli.hpp"

namespace pfmab::testing {

// A game from its rows of local means (one per client).
inline std::shared_ptr<const model::Instance> instance_of(std::vector<std::vector<double>> rows,
                                                          families::RewardFamily rewards = {}) {
  model::MeansTable table{std::move(rows), {}};
  table.row_origin.resize(table.rows.size(), "test");
  return std::make_shared<const model::Instance>(table, rewards);
}

// The paper's synthetic game (Fig. 1), read from ../shared/data.
inline std::shared_ptr<const model::Instance> synthetic_instance(
    families::RewardFamily rewards = {}) {
  return std::make_shared<const model::Instance>(
      model::read_means_csv(shared_data("synthetic_4x9.csv")), rewards);
}

// The cells an experiment file's text makes, its CSV paths relative to
// ../shared/data: how a test builds cells of an algorithm that is only
// registered (pf-alloc), with every default as a file would have it.
inline std::vector<sim::Cell> cells_of_experiment(std::string toml) {
  return io::load_experiment_text(std::move(toml), "test experiment", shared_data("")).cells;
}

// A built-in algorithm with its default options, by its registered name.
inline sim::AlgorithmChoice algorithm_named(std::string_view name) {
  if (name == "local-ucb") return algorithms::local_ucb();
  if (name == "centralized-ucb") return algorithms::centralized_ucb();
  if (name == "local-kl-ucb") return algorithms::local_kl_ucb();
  if (name == "centralized-kl-ucb") return algorithms::centralized_kl_ucb();
  if (name == "local-thompson") return algorithms::local_thompson();
  if (name == "centralized-thompson") return algorithms::centralized_thompson();
  return algorithms::pf_ucb({.enhanced = name == "pf-ucb-enhanced"});
}

// A cell of `instance` run by the built-in `algorithm` at `alpha` to `horizon`.
inline sim::CellSpec spec_of(std::shared_ptr<const model::Instance> instance,
                             std::string_view algorithm, double alpha, std::uint64_t horizon) {
  sim::CellSpec s;
  s.instance = std::move(instance);
  s.algorithm = algorithm_named(algorithm);
  s.alpha = alpha;
  s.horizon = horizon;
  return s;
}

// A replication's digest, as a run's is made of its replications'.
inline std::uint64_t digest_of(const sim::ReplicationResult& r) {
  Digest d;
  r.add_to(d);
  return d.value();
}

// `clients` rows of `arms` means drawn uniformly in [0, 1) from `seed`.
inline std::vector<std::vector<double>> random_means(std::size_t clients, std::size_t arms,
                                                     std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<std::vector<double>> rows(clients, std::vector<double>(arms));
  for (auto& row : rows) {
    for (auto& mu : row) mu = uniform(gen);
  }
  return rows;
}

// Replication 0 of `cell` (seed 8) on 1, 4 and 2 threads (non-monotone on
// purpose) gives one digest.
inline void expect_one_digest_on_any_thread_count(const sim::Cell& cell) {
  std::vector<std::uint64_t> digests;
  for (const int threads : {1, 4, 2}) {
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(threads));
    tbb::task_arena arena(threads);
    arena.execute([&] { digests.push_back(digest_of(sim::run_replication(cell, 8, 0))); });
  }
  EXPECT_EQ(digests[1], digests[0]);
  EXPECT_EQ(digests[2], digests[0]);
}

// numpy's default quantile (type 7) from a full sort: the reference.
inline double sorted_quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double h = q * static_cast<double>(v.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(h));
  const double high = below + 1 < v.size() ? v[below + 1] : v[below];
  return v[below] + (h - static_cast<double>(below)) * (high - v[below]);
}

// Every column of two results equal.
inline void expect_same_result(const sim::ReplicationResult& got,
                               const sim::ReplicationResult& want, const std::string& where) {
  SCOPED_TRACE(where);
  sim::for_each_column(
      [&](const auto& column) { EXPECT_EQ(column.of(got), column.of(want)) << column.name; });
}

}  // namespace pfmab::testing
