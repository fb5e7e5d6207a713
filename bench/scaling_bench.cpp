// How `pfmab run` scales from one to two workers on one machine: the real
// program, started as a user starts it, on 1 thread, on 2 threads, and as
// 2 MPI ranks of 1 thread each (`mpirun -np 2`), replications per second
// (bench/README.md, "Scaling", records the figures and the model built on
// them). Each run streams its results to an HDF5 file in the temp folder
// (deleted after each run, outside the timing), as a real run does;
// every run of a workload must print the digest of the first, or the
// benchmark fails.
//
//   per-pull    the synthetic game (M = 4, K = 9), alpha = 0.5, T = 1e5,
//               one draw per pull: compute-bound (about 1.5 ms a replication)
//   aggregated  the same game, the five alphas of Fig. 1, T = 1e6, one draw
//               per arm and phase: tens of microseconds a replication, so
//               the one writer (rank 0's, or the process's) is a large share
//   aggregated-no-output  the same without -o: what running on ranks costs,
//               without the writer
//   skewed      PF-UCB aggregated and local UCB per pull (T = 1e5): two cells
//               several hundred times apart in cost per replication (tens of
//               microseconds, about 9 ms), so blocks of equal size are not
//               equal work
//
// Each iteration runs a workload four times, back to back: on 1 thread, on 2
// threads, as 2 MPI ranks x 1 thread, and `mpirun -np 2 pfmab --version`
// (what launching two ranks and initialising MPI costs, once per job).
// Counters: `reps_per_s_<launch>`; `speedup_<launch>`, the 1-thread time
// over that launch's; `speedup_mpi:2x1_after_launch`, the same with the
// launch time taken off: the scaling of a run long enough for the launch not
// to count; `launch_s`. One iteration per repetition (Iterations(1)): repeat
// with --benchmark_repetitions and read the medians. This program's own flag
// `--scale=F` (default 1) multiplies every workload's replications (the CTest
// smoke run uses 0.01).
//
// BM_Merge times `pfmab merge` of the aggregated workload run as 4 shards.

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "bench_main.hpp"
#include "run_cli.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double scale = 1.0;  // --scale=F

struct Workload {
  const char* name;
  std::vector<std::string> flags;  // pfmab run's, without -R
  std::uint64_t replications;      // per cell, at scale 1
  std::uint64_t cells;
  bool writes = true;  // with -o, as a real run; without, what the ranks cost alone
};

const std::vector<Workload>& workloads() {
  static const std::string means = PFMAB_SHARED_DATA "/synthetic_4x9.csv";
  static const std::vector<Workload> all{
      {"per-pull",
       {"--means", means, "--alpha", "0.5", "-T", "1e5", "--mode", "per-pull"},
       4000,
       1},
      {"aggregated", {"--means", means, "-T", "1e6"}, 20000, 5},
      {"aggregated-no-output", {"--means", means, "-T", "1e6"}, 20000, 5, false},
      {"skewed",
       {"--means", means, "--alpha", "0.5", "-T", "1e5", "--algorithm", "pf-ucb,local-ucb"},
       1000,
       2},
  };
  return all;
}

std::uint64_t replications_of(const Workload& w) {
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(scale * w.replications));
}

// How a run is started: alone on `threads` threads, or as `ranks` MPI ranks.
struct Launch {
  int ranks = 1;
  int threads = 1;
  std::string name() const {
    return ranks == 1 ? fmt::format("threads:{}", threads)
                      : fmt::format("mpi:{}x{}", ranks, threads);
  }
};

// The program and arguments of a launch (mpirun's own first, if any).
std::pair<std::string, std::vector<std::string>> command(const Launch& launch,
                                                         std::vector<std::string> pfmab_args) {
  if (launch.ranks == 1) return {PFMAB_BINARY, pfmab_args};
#ifdef PFMAB_MPIEXEC
  return {PFMAB_MPIEXEC, pfmab::testing::mpirun_args(pfmab_args, launch.ranks)};
#else
  return {};
#endif
}

bool check_failed = false;

void fail(benchmark::State& state, const std::string& message) {
  check_failed = true;
  state.SkipWithError(message.c_str());
}

// Runs `program` to its end; its wall time in seconds and what it printed.
std::pair<double, pfmab::testing::CliResult> timed(const std::string& program,
                                                   const std::vector<std::string>& args) {
  const auto start = Clock::now();
  auto result = pfmab::testing::Spawned(program, args).wait();
  return {std::chrono::duration<double>(Clock::now() - start).count(), std::move(result)};
}

// One iteration: the workload on 1 thread, on 2 threads, as 2 ranks x 1
// thread, and the MPI launch alone, back to back, so that the machine's
// drift (it is shared) touches all four alike and their ratios stay sound.
void BM_Scaling(benchmark::State& state, const Workload& workload) {
  const auto output = fs::temp_directory_path() / fmt::format("pfmab_scaling_{}.h5", ::getpid());
  const auto replications = replications_of(workload);
  auto run_args = [&](int threads) {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), workload.flags.begin(), workload.flags.end());
    args.insert(args.end(), {"-R", std::to_string(replications), "--seed", "1", "--threads",
                             std::to_string(threads), "--quiet", "--json"});
    if (workload.writes) args.insert(args.end(), {"-o", output.string()});
    return args;
  };
  std::vector<Launch> launches{{1, 1}, {1, 2}};
#ifdef PFMAB_MPIEXEC
  launches.push_back({2, 1});
#endif
  std::vector<double> seconds(launches.size(), 0.0);
  double launching = 0;
  std::string expected;
  for (auto _ : state) {
    double iteration = 0;
    for (std::size_t l = 0; l < launches.size(); ++l) {
      const auto [program, argv] = command(launches[l], run_args(launches[l].threads));
      const auto [elapsed, run] = timed(program, argv);
      fs::remove(output);
      if (run.exit_code != 0) return fail(state, launches[l].name() + " failed: " + run.err);
      const auto digest = pfmab::testing::printed_digest(run);
      if (expected.empty()) expected = digest;
      if (digest != expected) {
        return fail(state, launches[l].name() + ": digest " + digest + ", not " + expected);
      }
      seconds[l] += elapsed;
      iteration += elapsed;
    }
    if (launches.size() > 2) {
      const auto [program, argv] = command({2, 1}, {"--version"});
      const auto [elapsed, run] = timed(program, argv);
      if (run.exit_code != 0) return fail(state, "mpirun failed: " + run.err);
      launching += elapsed;
      iteration += elapsed;
    }
    state.SetIterationTime(iteration);
  }
  const auto iterations = static_cast<double>(state.iterations());
  const auto total = static_cast<double>(replications * workload.cells);
  for (std::size_t l = 0; l < launches.size(); ++l) {
    const auto name = launches[l].name();
    state.counters["reps_per_s_" + name] = total * iterations / seconds[l];
    if (l > 0) state.counters["speedup_" + name] = seconds[0] / seconds[l];
  }
  if (launches.size() > 2) {
    state.counters["launch_s"] = launching / iterations;
    state.counters["speedup_" + launches[2].name() + "_after_launch"] =
        seconds[0] / (seconds[2] - launching);
  }
}

// `pfmab merge` of the aggregated workload's 4 shards (run once, outside
// the timing): every row read and written again, and the summaries built:
// what a job array pays once after its tasks.
void BM_Merge(benchmark::State& state) {
  const auto& workload = workloads()[1];
  const auto dir = fs::temp_directory_path() / fmt::format("pfmab_scaling_merge_{}", ::getpid());
  fs::create_directories(dir);
  std::vector<std::string> merge_args{"merge"};
  for (int shard = 0; shard < 4; ++shard) {
    const auto part = (dir / fmt::format("part-{}.h5", shard)).string();
    std::vector<std::string> args{"run"};
    args.insert(args.end(), workload.flags.begin(), workload.flags.end());
    args.insert(args.end(), {"-R", std::to_string(replications_of(workload)), "--seed", "1",
                             "--quiet", "--shard", fmt::format("{}/4", shard), "-o", part});
    const auto run = pfmab::testing::Spawned(PFMAB_BINARY, args).wait();
    if (run.exit_code != 0) return fail(state, "a shard failed: " + run.err);
    merge_args.push_back(part);
  }
  const auto merged = (dir / "merged.h5").string();
  merge_args.insert(merge_args.end(), {"-o", merged, "--json"});
  for (auto _ : state) {
    const auto [elapsed, run] = timed(PFMAB_BINARY, merge_args);
    fs::remove(merged);
    if (run.exit_code != 0) return fail(state, "the merge failed: " + run.err);
    state.SetIterationTime(elapsed);
  }
  fs::remove_all(dir);
  state.counters["reps_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * replications_of(workload) * workload.cells),
      benchmark::Counter::kIsRate);
}

void register_all() {
  for (const auto& workload : workloads()) {
    benchmark::RegisterBenchmark(
        fmt::format("BM_Scaling/{}", workload.name).c_str(),
        [&workload](benchmark::State& state) { BM_Scaling(state, workload); })
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kSecond);
  }
  benchmark::RegisterBenchmark("BM_Merge/aggregated/shards:4", BM_Merge)
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kSecond);
}

}  // namespace

int main(int argc, char** argv) {
  return pfmab::bench::run_benchmarks(argc, argv, "pfmab_scaling_bench",
                                      {pfmab::bench::scale_flag(scale)}, register_all,
                                      check_failed);
}
