// What calling the engine from Python costs over the command line: one
// experiment run by `pfmab run EXP -o OUT` and by `pfmab.run(EXP, output=OUT)`
// in /usr/bin/python3, each a process started as a user starts it, paired in
// every iteration as command line, Python, Python, command line (so that
// the shared machine's drift touches both alike), the output deleted after
// each run outside the timing; both must print one digest.
//
//   aggregated  the quick start's game and alphas (5 cells), T = 1e6,
//               40,000 replications a cell: tens of microseconds each, so
//               the output's writing is a large share (about 3 s)
//   per-pull    the synthetic game, alpha 0.5, T = 1e5, one draw per pull,
//               8,000 replications: compute-bound (about 3 s)
//
// Counters: `cli_s` and `python_s`, each process's wall time; `call_s`, the
// time of the pfmab.run call alone (Python's start and `import pfmab` left
// out, as in a notebook, where they are paid once); `python_over_cli` and
// `call_over_cli`, their ratios to `cli_s` over the iterations. Both run on
// 2 threads. One iteration per repetition (Iterations(1)): repeat with
// --benchmark_repetitions and read the medians. This program's own flag
// `--scale=F` (default 1) multiplies the replications (the smoke run: 0.01).

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
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
bool check_failed = false;

struct Workload {
  const char* name;
  std::string experiment;  // the file's text, without replications
  std::uint64_t replications;
};

const std::vector<Workload>& workloads() {
  static const std::string means = PFMAB_SHARED_DATA "/synthetic_4x9.csv";
  static const std::vector<Workload> all{
      {"aggregated",
       fmt::format("seed = 1\nhorizon = 1e6\nalpha = [0, 0.2, 0.5, 0.9, 1]\n"
                   "[instance]\nmeans = \"{}\"\n",
                   means),
       40000},
      {"per-pull",
       fmt::format("seed = 1\nhorizon = 1e5\nalpha = 0.5\nmode = \"per-pull\"\n"
                   "[instance]\nmeans = \"{}\"\n",
                   means),
       8000},
  };
  return all;
}

// Runs the experiment, prints the call's seconds and the digest.
constexpr std::string_view kPython = R"(
import sys, time
import pfmab
start = time.perf_counter()
r = pfmab.run(sys.argv[1], replications=int(sys.argv[2]), output=sys.argv[3], threads=2,
              progress=False)
print(time.perf_counter() - start, r.digest)
)";

void fail(benchmark::State& state, const std::string& message) {
  check_failed = true;
  state.SkipWithError(message.c_str());
}

void BM_PythonVsCli(benchmark::State& state, const Workload& workload) {
  const auto dir = fs::temp_directory_path() / fmt::format("pfmab_python_bench_{}", ::getpid());
  fs::create_directories(dir);
  const auto experiment = (dir / "exp.toml").string(), output = (dir / "out.h5").string();
  std::ofstream(experiment) << workload.experiment;
  const auto replications = std::to_string(
      std::max<std::uint64_t>(1, static_cast<std::uint64_t>(scale * workload.replications)));

  double cli_s = 0, python_s = 0, call_s = 0;
  std::string expected;
  const auto check = [&](const std::string& who, const std::string& digest) {
    if (expected.empty()) expected = digest;
    if (digest == expected) return true;
    fail(state, fmt::format("{}: digest '{}', not {}", who, digest, expected));
    return false;
  };
  for (auto _ : state) {
    double iteration = 0;
    for (const bool python : {false, true, true, false}) {
      const auto start = Clock::now();
      const auto run =
          python ? pfmab::testing::Spawned(
                       PFMAB_PYTHON, {"-c", std::string(kPython), experiment, replications, output})
                       .wait()
                 : pfmab::testing::Spawned(PFMAB_BINARY,
                                           {"run", experiment, "-R", replications, "-o", output,
                                            "--threads", "2", "--quiet", "--json"})
                       .wait();
      const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
      fs::remove(output);
      if (run.exit_code != 0) {
        return fail(state, fmt::format("{} failed: {}", python ? "python" : "pfmab run", run.err));
      }
      if (python) {
        std::istringstream printed(run.out);
        double call = 0;
        std::string digest;
        printed >> call >> digest;
        if (!check("python", digest)) return;
        call_s += call;
        python_s += elapsed;
      } else {
        if (!check("pfmab run", pfmab::testing::printed_digest(run))) return;
        cli_s += elapsed;
      }
      iteration += elapsed;
    }
    state.SetIterationTime(iteration);
  }
  fs::remove_all(dir);
  const auto runs = 2.0 * static_cast<double>(state.iterations());
  state.counters["cli_s"] = cli_s / runs;
  state.counters["python_s"] = python_s / runs;
  state.counters["call_s"] = call_s / runs;
  state.counters["python_over_cli"] = python_s / cli_s;
  state.counters["call_over_cli"] = call_s / cli_s;
}

// A Python policy with many calls a replication, in a module as
// processes= needs (workers import it by name): every client pulls each arm
// 2^p times in phase p, the server averages the clients' means, and after
// 20 phases each client commits to its best mixed estimate; about 900
// calls into Python a replication of the 4x9 game.
constexpr std::string_view kPolicy = R"(
import pfmab


class DoublingExplore(pfmab.Algorithm):
    def __init__(self, context):
        super().__init__(context)
        self.phase = 0
        self.sums = [[0.0] * self.arms for _ in range(self.clients)]
        self.pulls = 0
        self.means = [0.0] * self.arms
        self.committed = [None] * self.clients

    def finished(self):
        return self.committed[0] is not None

    def begin_phase(self, phase, participants):
        self.phase = phase

    def plan(self, m):
        return [(range(self.arms), 2 ** self.phase)]

    def record(self, m, arm, pulls, total):
        self.sums[m][arm] += total

    def exploit_arm(self, m):
        return self.committed[m] or 0

    def aggregate(self, participants):
        self.pulls += 2 ** self.phase
        self.means = [sum(s[k] for s in self.sums) / (self.clients * self.pulls)
                      for k in range(self.arms)]

    def update(self, m):
        if self.phase < 20:
            return
        mixed = [self.alpha * self.sums[m][k] / self.pulls + (1 - self.alpha) * self.means[k]
                 for k in range(self.arms)]
        self.committed[m] = mixed.index(max(mixed))

    def fixed_arm(self, m):
        return self.committed[m]
)";

// Runs the policy on `processes` (argv[4]), prints the call's seconds and
// the digest.
constexpr std::string_view kProcesses = R"(
import sys, time
import pfmab
sys.path.insert(0, sys.argv[1])
start = time.perf_counter()
r = pfmab.run(means=sys.argv[2], alpha=0.5, horizon=1e12, replications=int(sys.argv[3]),
              algorithm="bench_policy:DoublingExplore", processes=int(sys.argv[4]), threads=1,
              seed=1, progress=False)
print(time.perf_counter() - start, r.digest)
)";

// The same Python policy on one process and on two (one thread each),
// paired in every iteration as 1, 2, 2, 1; both must give one digest.
// 20,000 replications at T = 1e12: about 9 s on one process.
// Counters: `one_s` and `two_s`, the pfmab.run call's wall time on each
// (the workers' start included); `speedup`, one_s / two_s.
void BM_PythonProcesses(benchmark::State& state) {
  const auto dir = fs::temp_directory_path() / fmt::format("pfmab_python_processes_{}", ::getpid());
  fs::create_directories(dir);
  std::ofstream(dir / "bench_policy.py") << kPolicy;
  const auto replications =
      std::to_string(std::max<std::uint64_t>(2, static_cast<std::uint64_t>(scale * 20000)));
  double seconds[2] = {0, 0};
  std::string expected;
  for (auto _ : state) {
    double iteration = 0;
    for (const int processes : {1, 2, 2, 1}) {
      const auto start = Clock::now();
      const auto run =
          pfmab::testing::Spawned(PFMAB_PYTHON, {"-c", std::string(kProcesses), dir.string(),
                                                 PFMAB_SHARED_DATA "/synthetic_4x9.csv",
                                                 replications, std::to_string(processes)})
              .wait();
      const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
      if (run.exit_code != 0) {
        return fail(state, fmt::format("processes={} failed: {}", processes, run.err));
      }
      std::istringstream printed(run.out);
      double call = 0;
      std::string digest;
      printed >> call >> digest;
      if (expected.empty()) expected = digest;
      if (digest != expected) {
        return fail(state,
                    fmt::format("processes={}: digest '{}', not {}", processes, digest, expected));
      }
      seconds[processes - 1] += call;
      iteration += elapsed;
    }
    state.SetIterationTime(iteration);
  }
  fs::remove_all(dir);
  const auto runs = 2.0 * static_cast<double>(state.iterations());
  state.counters["one_s"] = seconds[0] / runs;
  state.counters["two_s"] = seconds[1] / runs;
  state.counters["speedup"] = seconds[0] / seconds[1];
}

void register_all() {
  benchmark::RegisterBenchmark("BM_PythonProcesses", BM_PythonProcesses)
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kSecond);
  for (const auto& workload : workloads()) {
    benchmark::RegisterBenchmark(
        fmt::format("BM_PythonVsCli/{}", workload.name).c_str(),
        [&workload](benchmark::State& state) { BM_PythonVsCli(state, workload); })
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kSecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // the package and its engine module of this build, whatever the user's path says
  setenv("PYTHONPATH", PFMAB_PYTHONPATH, 1);
  return pfmab::bench::run_benchmarks(argc, argv, "pfmab_python_bench",
                                      {pfmab::bench::scale_flag(scale)}, register_all,
                                      check_failed);
}
