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
//
// BM_PythonPolicy/POLICY/M/K/log10 T/R: what an algorithm written in Python
// costs (docs/python.md, "Write an algorithm in Python"), in one Python
// process, on 1 thread, aggregated mode, on an M x K game of fixed means:
//
//   pf_ucb          python/pfmab/examples/pf_ucb.py against the engine's
//                   pf-ucb, paired (C++, Python, Python, C++), same digest
//   local_ucb       python/pfmab/examples/local_ucb.py, UCB1 as phases of
//                   one pull, against the engine's local-ucb (the same
//                   pulls; another digest: local-ucb records no phases)
//   epsilon_greedy  the worked example, python/pfmab/examples/
//                   epsilon_greedy.py, alone (no C++ twin): it never stops
//                   exploring, so its phases grow with log T (14 at 10^6,
//                   34 at 10^12 on 4 x 9)
//
// Counters: `python_us` and `cpp_us`, microseconds per replication;
// `python_over_cpp`; `phases`, per replication; `python_us_per_phase`.
//
// BM_PythonProcesses: a policy written in Python run by pfmab.run on one
// worker process and on two (processes=2), paired; below.

#include <unistd.h>

#include <chrono>
#include <cmath>
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

// Times POLICY's replications on an M x K game at T (argv), and its C++
// twin's where there is one, first or second as ORDER says, after a
// replication of each outside the timing (the process's first run pays the
// engine's and the module's start); prints "python_s cpp_s python_digest
// cpp_digest phases" (cpp_s 0 without a twin; cpp_digest "-" without one
// that must give the same digest).
constexpr std::string_view kPolicy = R"(
import sys, time
import pfmab
from pfmab.examples.epsilon_greedy import FederatedEpsilonGreedy
from pfmab.examples.local_ucb import LocalUcbPerPull
from pfmab.examples.pf_ucb import PfUcb
policy, M, K, T, R, order = sys.argv[1], *map(int, sys.argv[2:6]), sys.argv[6]
means = [[((7 * m + 3 * k) % 11) / 10 for k in range(K)] for m in range(M)]
game = dict(means=means, alpha=0.5, horizon=T, replications=R, seed=3, threads=1,
            progress=False)
# the Python class, its C++ twin, whether they give one digest (local-ucb
# records no phases: the same pulls, another digest)
classes = {"pf_ucb": (PfUcb, "pf-ucb", True), "local_ucb": (LocalUcbPerPull, "local-ucb", False),
           "epsilon_greedy": (FederatedEpsilonGreedy, None, False)}
python, cpp, same_digest = classes[policy]
def timed(algorithm):
    start = time.perf_counter()
    r = pfmab.run(**game, algorithm=algorithm)
    return time.perf_counter() - start, r
for algorithm in [python, cpp] if cpp else [python]:
    pfmab.run(**dict(game, replications=1), algorithm=algorithm)
cpp_s, cpp_digest = 0.0, "-"
if cpp and order == "cpp-first":
    cpp_s, c = timed(cpp)
python_s, r = timed(python)
if cpp and order == "python-first":
    cpp_s, c = timed(cpp)
if same_digest:
    cpp_digest = c.digest
print(python_s, cpp_s, r.digest, cpp_digest, r.summary["phases_mean"].iloc[0])
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

// The worked example (python/pfmab/examples/epsilon_greedy.py: 34 phases
// at T = 1e12 on 4 x 9, about 1,600 calls into Python a replication), named
// by module:Class as workers import it, on `processes` (argv[3]); prints
// the call's seconds and the digest.
constexpr std::string_view kProcesses = R"(
import sys, time
import pfmab
start = time.perf_counter()
r = pfmab.run(means=sys.argv[1], alpha=0.5, horizon=1e12, replications=int(sys.argv[2]),
              algorithm="pfmab.examples.epsilon_greedy:FederatedEpsilonGreedy",
              processes=int(sys.argv[3]), threads=1, seed=1, progress=False)
print(time.perf_counter() - start, r.digest)
)";

// The same Python policy on one process and on two (one thread each),
// paired in every iteration as 1, 2, 2, 1; both must give one digest.
// 6,000 replications at T = 1e12: about 5 s on one process.
// Counters: `one_s` and `two_s`, the pfmab.run call's wall time on each
// (the workers' start included); `speedup`, one_s / two_s.
void BM_PythonProcesses(benchmark::State& state) {
  const auto replications =
      std::to_string(std::max<std::uint64_t>(2, static_cast<std::uint64_t>(scale * 6000)));
  double seconds[2] = {0, 0};
  std::string expected;
  for (auto _ : state) {
    double iteration = 0;
    for (const int processes : {1, 2, 2, 1}) {
      const auto start = Clock::now();
      const auto run =
          pfmab::testing::Spawned(
              PFMAB_PYTHON, {"-c", std::string(kProcesses), PFMAB_SHARED_DATA "/synthetic_4x9.csv",
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
  const auto runs = 2.0 * static_cast<double>(state.iterations());
  state.counters["one_s"] = seconds[0] / runs;
  state.counters["two_s"] = seconds[1] / runs;
  state.counters["speedup"] = seconds[0] / seconds[1];
}

void BM_PythonPolicy(benchmark::State& state, const std::string& policy) {
  const auto clients = state.range(0), arms = state.range(1);
  const auto horizon = fmt::format("{:.0f}", std::pow(10.0, static_cast<double>(state.range(2))));
  const auto replications =
      std::to_string(std::max<std::int64_t>(2, static_cast<std::int64_t>(scale * state.range(3))));
  double python_s = 0, cpp_s = 0, phases = 0;
  for (auto _ : state) {
    double iteration = 0;
    // paired as C++, Python, Python, C++, so that the machine's drift
    // touches both alike
    for (const char* order : {"cpp-first", "python-first"}) {
      const auto run =
          pfmab::testing::Spawned(PFMAB_PYTHON,
                                  {"-c", std::string(kPolicy), policy, std::to_string(clients),
                                   std::to_string(arms), horizon, replications, order})
              .wait();
      if (run.exit_code != 0) return fail(state, "python failed: " + run.err);
      std::istringstream printed(run.out);
      double py = 0, cpp = 0, p = 0;
      std::string py_digest, cpp_digest;
      printed >> py >> cpp >> py_digest >> cpp_digest >> p;
      if (cpp_digest != "-" && cpp_digest != py_digest) {
        return fail(state,
                    fmt::format("{}: Python digest {}, C++ {}", policy, py_digest, cpp_digest));
      }
      python_s += py;
      cpp_s += cpp;
      phases = p;
      iteration += py + cpp;
    }
    state.SetIterationTime(iteration);
  }
  const double runs = 2.0 * static_cast<double>(state.iterations()) * std::stod(replications);
  state.counters["python_us"] = 1e6 * python_s / runs;
  state.counters["phases"] = phases;
  state.counters["python_us_per_phase"] = 1e6 * python_s / runs / phases;
  if (cpp_s > 0) {
    state.counters["cpp_us"] = 1e6 * cpp_s / runs;
    state.counters["python_over_cpp"] = python_s / cpp_s;
  }
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
  // M, K, log10 T and the replications of a run: about a second of Python
  const std::vector<std::pair<std::string, std::vector<std::vector<std::int64_t>>>> policies{
      {"pf_ucb", {{4, 9, 6, 1111}, {20, 10, 6, 200}, {40, 40, 6, 25}, {4, 9, 12, 1111}}},
      {"local_ucb", {{4, 9, 3, 10}, {4, 9, 4, 2}}},
      {"epsilon_greedy", {{4, 9, 6, 1111}, {4, 9, 12, 1111}}},
  };
  for (const auto& [policy, args] : policies) {
    auto* b = benchmark::RegisterBenchmark(
        fmt::format("BM_PythonPolicy/{}", policy).c_str(),
        [policy](benchmark::State& state) { BM_PythonPolicy(state, policy); });
    b->ArgNames({"M", "K", "log10T", "R"})
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kSecond);
    for (const auto& a : args) b->Args(a);
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
