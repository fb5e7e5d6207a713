#include "pfmab/sim/runner.hpp"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_pipeline.h>
#include <oneapi/tbb/task_arena.h>

#include <fmt/format.h>

#include "pfmab/util/limits.hpp"
#include "pfmab/util/error.hpp"

namespace pfmab::sim {
namespace {

struct Job {
  std::size_t cell = 0;
  std::uint64_t replication = 0;
};

// A replication run to its end, or interrupted by a stop request.
struct Finished {
  Job job;
  std::optional<ReplicationResult> result;
};

// Hands out (cell, replication) block by block, in the order the source
// gives the blocks.
class JobOrder {
 public:
  explicit JobOrder(const BlockSource& source) : source_(source) {}

  std::optional<Job> pop() {
    while (next_ == block_.replications.end) {
      const auto block = source_();
      if (!block) return std::nullopt;
      block_ = *block;
      next_ = block_.replications.first;
    }
    return Job{block_.cell, next_++};
  }

 private:
  const BlockSource& source_;
  Block block_;
  std::uint64_t next_ = 0;
};

}  // namespace

void validate(const RunOptions& options) {
  if (options.replications == 0) throw UserError("the number of replications must be at least 1");
  if (options.threads == 0) throw UserError("the number of threads must be at least 1");
  if (options.threads > limits::max_threads()) {
    throw UserError(fmt::format(
        "{} threads: at most {} are accepted ({} per core of the {} this process may use; more "
        "threads only add memory and contention)",
        options.threads, limits::max_threads(), limits::threads_per_core,
        limits::max_threads() / limits::threads_per_core));
  }
}

std::size_t max_in_flight(unsigned threads) { return 4 * static_cast<std::size_t>(threads); }

void run_sweep(std::span<const Cell> cells, const RunOptions& options, const ResultSink& sink) {
  std::size_t cell = 0;
  run_blocks(cells, options, [&]() -> std::optional<Block> {
    for (; cell < cells.size(); ++cell) {
      const auto range = cell < options.ranges.size()
                             ? options.ranges[cell]
                             : ReplicationRange{0, options.replications};
      if (range.count() > 0) return Block{cell++, range};
    }
    return std::nullopt;
  }, sink);
}

void run_blocks(std::span<const Cell> cells, const RunOptions& options, const BlockSource& source,
                const ResultSink& sink) {
  validate(options);
  JobOrder order(source);
  const StopToken stop(options.stop);
  // Once a replication is interrupted, none after it in the sink's order is
  // handed on either: the sink sees a prefix of the run, as its output
  // (replications 0..n-1 of a cell, resumable at n) requires.
  bool interrupted = false;

  // An arena alone is capped at the core count; the global limit must be
  // raised too for `threads` to mean exactly that many threads.
  const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, options.threads);
  tbb::task_arena arena(static_cast<int>(options.threads));
  // Tokens bound the replications between the in-order input and the
  // in-order output: the memory a run holds, whatever its length.
  const auto pipeline = [&] {
    tbb::parallel_pipeline(
        max_in_flight(options.threads),
        tbb::make_filter<void, Job>(tbb::filter_mode::serial_in_order,
                                    [&](tbb::flow_control& control) {
                                      std::optional<Job> job;
                                      if (!stop.requested()) job = order.pop();
                                      if (!job) control.stop();
                                      return job.value_or(Job{});
                                    }) &
            tbb::make_filter<Job, Finished>(
                tbb::filter_mode::parallel,
                [&](Job job) {
                  try {
                    const Stopwatch watch;
                    auto result =
                        run_replication(cells[job.cell], options.seed, job.replication, stop);
                    result.used = watch.elapsed();
                    if (options.timed) options.timed(job.cell, result.used);
                    return Finished{job, std::move(result)};
                  } catch (const Interrupted&) {
                    return Finished{job, std::nullopt};
                  }
                }) &
            tbb::make_filter<Finished, void>(tbb::filter_mode::serial_in_order, [&](Finished done) {
              interrupted = interrupted || !done.result;
              if (interrupted) return;
              sink(done.job.cell, done.job.replication, std::move(*done.result));
              if (options.completed) options.completed->fetch_add(1, std::memory_order_relaxed);
            }));
  };
  arena.execute([&] {
    try {
      pipeline();
    } catch (...) {
      if (options.settle) options.settle();
      throw;
    }
    if (options.settle) options.settle();
  });
}

std::vector<std::vector<ReplicationResult>> run_sweep(std::span<const Cell> cells,
                                                      const RunOptions& options) {
  std::vector<std::vector<ReplicationResult>> results(cells.size());
  run_sweep(cells, options, [&](std::size_t cell, std::uint64_t, ReplicationResult&& result) {
    results[cell].push_back(std::move(result));
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
