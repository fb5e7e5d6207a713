#include "pfmab/sim/runner.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "pfmab/util/error.hpp"

namespace pfmab::sim {

std::vector<std::vector<ReplicationResult>> run_sweep(std::span<const Cell> cells,
                                                      const RunOptions& options) {
  if (options.replications == 0) throw UserError("the number of replications must be at least 1");
  if (options.threads == 0) throw UserError("the number of threads must be at least 1");
  std::vector<std::vector<ReplicationResult>> results(cells.size());
  for (auto& cell_results : results) cell_results.resize(options.replications);

  const std::uint64_t total = cells.size() * options.replications;
  // An arena alone is capped at the core count; the global limit must be
  // raised too for `threads` to mean exactly that many threads.
  const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, options.threads);
  tbb::task_arena arena(static_cast<int>(options.threads));
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, total, 1), [&](const auto& range) {
      for (auto i = range.begin(); i != range.end(); ++i) {
        const auto c = i / options.replications, r = i % options.replications;
        results[c][r] = run_replication(cells[c], options.seed, r);
        if (options.completed) options.completed->fetch_add(1, std::memory_order_relaxed);
      }
    });
  });
  return results;
}

std::string digest_of(const std::vector<std::vector<ReplicationResult>>& results) {
  Digest digest;
  for (const auto& cell_results : results) {
    for (const auto& r : cell_results) r.add_to(digest);
  }
  return digest.hex();
}

}  // namespace pfmab::sim
