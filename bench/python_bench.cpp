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

void register_all() {
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
