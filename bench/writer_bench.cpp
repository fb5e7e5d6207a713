// What an HDF5 output costs against the number of cells of a sweep
// (bench/README.md, "Writer against cells"): issue 25 found writing one
// superlinear in the cells (125 / 250 / 500 / 1,000 cells of 2 replications:
// 0.7 / 1.7 / 11 / 42 s of processor time with -o, 0.06 s without).
//
// The sweep is the issue's: a 2 x 2 game (means 0.9, 0.1; 0.8, 0.2), alpha
// 0.5, T = 1000, C = 1, 2, ..., N (N cells), 2 replications per cell, seed 1,
// 2 threads, run through run::run_experiment as `pfmab run` calls it:
//
//   BM_Cells_NoOutput/cells:N  without -o
//   BM_Cells_Hdf5/cells:N      with -o (a new file in the temp folder,
//                              deleted after each iteration, outside the
//                              timing); its digest must be the run's without
//
// Counters: `per_cell` (time per cell, printed as e.g. "1.2ms"); for the HDF5
// runs the seconds of each step (`create_s`: building the new file and
// opening it; `sweep_s`: the replications until the last row is written,
// each cell's summary included; `close_s`) and `writer_cpu_s`, the writer
// thread's processor time. One iteration is one whole sweep; repeat with
// --benchmark_repetitions. This program's own flag `--max-cells=N` (default
// 10000) leaves out the sizes above N (the CTest smoke run uses 125; a
// superlinear writer takes hours at 10,000).

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "pfmab/io/experiment.hpp"
#include "pfmab/run/run_experiment.hpp"
#include "pfmab/run/world.hpp"

#include "bench_main.hpp"

namespace {

namespace fs = std::filesystem;

std::int64_t max_cells = 10'000;  // --max-cells=N
constexpr unsigned kThreads = 2;

fs::path temp_path(std::string_view what) {
  return fs::temp_directory_path() / fmt::format("pfmab_writer_bench_{}_{}", ::getpid(), what);
}

// The sweep of `cells` cells (loaded once per size).
const pfmab::io::Experiment& experiment(std::int64_t cells) {
  static std::map<std::int64_t, pfmab::io::Experiment> loaded;
  if (const auto found = loaded.find(cells); found != loaded.end()) return found->second;
  static const fs::path means = [] {
    const auto path = temp_path("means.csv");
    std::ofstream(path) << "0.9,0.1\n0.8,0.2\n";
    return path;
  }();
  std::string costs;
  for (std::int64_t c = 1; c <= cells; ++c) costs += fmt::format("{}{}", c == 1 ? "" : ",", c);
  using pfmab::io::flag_values;
  return loaded
      .emplace(cells, pfmab::io::load_experiment(
                          std::nullopt, {flag_values("instance.means", means.string()),
                                         flag_values("alpha", "0.5"), flag_values("horizon", "1000"),
                                         flag_values("comm_cost", costs),
                                         flag_values("replications", "2"), flag_values("seed", "1")}))
      .first->second;
}

// The digest of each size's run without output (which the HDF5 run must
// reproduce), once that has run.
std::map<std::int64_t, std::string>& expected_digests() {
  static std::map<std::int64_t, std::string> digests;
  return digests;
}

bool check_failed = false;

pfmab::run::Outcome run_once(std::int64_t cells, const fs::path& output) {
  pfmab::run::Options options;
  options.threads = kThreads;
  options.output = output;
  pfmab::run::OneRank alone;
  return pfmab::run::run_experiment(experiment(cells), options, alone);
}

void per_cell(benchmark::State& state) {
  const auto cells = static_cast<double>(state.iterations() * state.range(0));
  state.counters["per_cell"] =
      benchmark::Counter(cells, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_Cells_NoOutput(benchmark::State& state) {
  const auto cells = state.range(0);
  experiment(cells);  // loaded outside the timing
  for (auto _ : state) expected_digests()[cells] = run_once(cells, {}).report->digest;
  per_cell(state);
}

void BM_Cells_Hdf5(benchmark::State& state) {
  const auto cells = state.range(0);
  experiment(cells);
  const auto path = temp_path("out.h5");
  fs::remove(path);
  double create_s = 0.0, sweep_s = 0.0, close_s = 0.0, writer_cpu_s = 0.0;
  std::string digest;
  for (auto _ : state) {
    const auto outcome = run_once(cells, path);
    digest = outcome.report->digest;
    create_s += outcome.timings.open;
    sweep_s += outcome.timings.sweep;
    close_s += outcome.timings.close + outcome.timings.summaries;
    writer_cpu_s += outcome.timings.writer_cpu;
    state.PauseTiming();
    fs::remove(path);
    state.ResumeTiming();
  }
  if (const auto expected = expected_digests().find(cells);
      expected != expected_digests().end() && expected->second != digest) {
    check_failed = true;
    state.SkipWithError("the digest differs from the run's without output");
  }
  per_cell(state);
  for (const auto& [name, value] : {std::pair{"create_s", create_s},
                                    {"sweep_s", sweep_s},
                                    {"close_s", close_s},
                                    {"writer_cpu_s", writer_cpu_s}}) {
    state.counters[name] = benchmark::Counter(value, benchmark::Counter::kAvgIterations);
  }
}

void register_all() {
  for (const auto& [name, fn] : {std::pair{"BM_Cells_NoOutput", &BM_Cells_NoOutput},
                                 {"BM_Cells_Hdf5", &BM_Cells_Hdf5}}) {
    auto* b = benchmark::RegisterBenchmark(name, fn);
    b->ArgName("cells")->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
    for (const std::int64_t cells : {125, 250, 500, 1000, 2000, 5000, 10000}) {
      if (cells <= max_cells) b->Arg(cells);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto status = pfmab::bench::run_benchmarks(
      argc, argv, "pfmab_writer_bench",
      {{"--max-cells=",
        [](std::string_view value) -> std::string {
          max_cells = std::strtoll(std::string(value).c_str(), nullptr, 10);
          return max_cells >= 125 ? "" : "--max-cells must be at least 125";
        }}},
      register_all, check_failed);
  fs::remove(temp_path("means.csv"));
  return status;
}
