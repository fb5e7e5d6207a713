// How `pfmab run` scales from one to two workers on one machine: the real
// program, started as a user starts it, on 1 thread, on 2 threads, and as
// 2 MPI ranks of 1 thread each (`mpirun -np 2`), replications per second
// (bench/README.md, "Scaling", records the figures and the model built on
// them). Each run streams its results to an HDF5 file in the temp folder
// (deleted after each iteration, outside the timing), as a real run does;
// every run of a workload must print the digest of the first, or the
// benchmark fails.
//
//   per-pull    the synthetic game (M = 4, K = 9), alpha = 0.5, T = 1e5,
//               one draw per pull: compute-bound (about 1.5 ms a replication)
//   aggregated  the same game, the five alphas of Fig. 1, T = 1e6, one draw
//               per arm and phase: tens of microseconds a replication, so
//               the one writer (rank 0's, or the process's) is a large share
//   skewed      PF-UCB aggregated and local UCB per pull (T = 1e5): two cells
//               about 100x apart in cost, where a fixed split of the work
//               among ranks would leave one idle
//
// BM_MpiStartup is `mpirun -np 2 pfmab --version`: what launching two ranks
// and initialising MPI costs, paid once per job.
//
// `speedup` is the time of the workload's 1-thread run (the mean of its
// repetitions, measured first in the same program run) over this one's.
// One iteration is one whole run (Iterations(1)); repeat with
// --benchmark_repetitions. This program's own flag `--scale=F` (default 1)
// multiplies every workload's replications (the CTest smoke run uses 0.01).

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "spawn.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double scale = 1.0;  // --scale=F

struct Workload {
  const char* name;
  std::vector<std::string> flags;  // pfmab run's, without -R
  std::uint64_t replications;      // per cell, at scale 1
  std::uint64_t cells;
};

const std::vector<Workload>& workloads() {
  static const std::string means = PFMAB_SHARED_DATA "/synthetic_4x9.csv";
  static const std::vector<Workload> all{
      {"per-pull", {"--means", means, "--alpha", "0.5", "-T", "1e5", "--mode", "per-pull"}, 4000, 1},
      {"aggregated", {"--means", means, "-T", "1e6"}, 20000, 5},
      {"skewed",
       {"--means", means, "--alpha", "0.5", "-T", "1e5", "--algorithm", "pf-ucb,local-ucb"},
       2000,
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
  std::vector<std::string> args{"--oversubscribe", "-np", std::to_string(launch.ranks)};
  if (::geteuid() == 0) args.push_back("--allow-run-as-root");
  args.push_back(PFMAB_BINARY);
  args.insert(args.end(), pfmab_args.begin(), pfmab_args.end());
  return {PFMAB_MPIEXEC, args};
#else
  return {};
#endif
}

// Per workload: the digest every run must print, the mean 1-thread time.
std::map<std::string, std::string> digests;
std::map<std::string, std::pair<double, int>> one_thread_seconds;  // sum, count
bool check_failed = false;

void fail(benchmark::State& state, const std::string& message) {
  check_failed = true;
  state.SkipWithError(message.c_str());
}

void BM_Scaling(benchmark::State& state, const Workload& workload, const Launch& launch) {
  const auto output = fs::temp_directory_path() / fmt::format("pfmab_scaling_{}.h5", ::getpid());
  std::vector<std::string> args{"run"};
  args.insert(args.end(), workload.flags.begin(), workload.flags.end());
  const auto replications = replications_of(workload);
  args.insert(args.end(), {"-R", std::to_string(replications), "--seed", "1", "--threads",
                           std::to_string(launch.threads), "--quiet", "--json", "-o",
                           output.string()});
  const auto [program, argv] = command(launch, args);
  double seconds = 0;
  for (auto _ : state) {
    const auto start = Clock::now();
    const auto run = pfmab::testing::Spawned(program, argv).wait();
    const auto elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    state.SetIterationTime(elapsed);
    seconds += elapsed;
    state.PauseTiming();
    fs::remove(output);
    state.ResumeTiming();
    if (run.exit_code != 0) return fail(state, "the run failed: " + run.err);
    const auto digest = nlohmann::json::parse(run.out)["digest"].get<std::string>();
    auto& expected = digests[workload.name];
    if (expected.empty()) expected = digest;
    if (digest != expected) return fail(state, "digest " + digest + ", not " + expected);
  }
  const auto iterations = static_cast<double>(state.iterations());
  const auto total = static_cast<double>(replications * workload.cells);
  state.counters["reps_per_s"] = benchmark::Counter(total * iterations, benchmark::Counter::kIsRate);
  auto& [sum, count] = one_thread_seconds[workload.name];
  if (launch.ranks == 1 && launch.threads == 1) {
    sum += seconds;
    count += static_cast<int>(iterations);
  }
  if (count > 0) state.counters["speedup"] = (sum / count) / (seconds / iterations);
}

void BM_MpiStartup(benchmark::State& state) {
  const auto [program, argv] = command({2, 1}, {"--version"});
  for (auto _ : state) {
    const auto run = pfmab::testing::Spawned(program, argv).wait();
    if (run.exit_code != 0) return fail(state, "mpirun failed: " + run.err);
  }
}

void register_all() {
  std::vector<Launch> launches{{1, 1}, {1, 2}};
#ifdef PFMAB_MPIEXEC
  launches.push_back({2, 1});
  benchmark::RegisterBenchmark("BM_MpiStartup", BM_MpiStartup)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
#endif
  for (const auto& workload : workloads()) {
    for (const auto& launch : launches) {
      benchmark::RegisterBenchmark(
          fmt::format("BM_Scaling/{}/{}", workload.name, launch.name()).c_str(),
          [&workload, launch](benchmark::State& state) { BM_Scaling(state, workload, launch); })
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // This program's own flag, taken out before Benchmark sees the others.
  constexpr std::string_view scale_flag = "--scale=";
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with(scale_flag)) {
      scale = std::strtod(argv[i] + scale_flag.size(), nullptr);
      if (!(scale > 0)) {
        std::cerr << "pfmab_scaling_bench: --scale must be a positive number\n";
        return 2;
      }
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return check_failed ? 1 : 0;
}
