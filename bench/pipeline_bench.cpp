// What streaming the results to HDF5 adds to the wall time of a run of many
// short replications (bench/README.md, "Results pipeline", records the
// figures and their ratios). Every benchmark runs the same sweep through
// run::run_experiment, the entry point `pfmab run` calls, in a one-rank
// world on the same thread count; only the output differs:
//
//   BM_Sweep_NoOutput     `pfmab run` without -o: a CellAccumulator and the
//                         digest, per replication
//   BM_Sweep_Hdf5         a new `pfmab run -o`: the same, and every result
//                         pushed to the WriterThread of a ResultsWriter
//                         created for it (which writes the rows and builds the
//                         cell's summary as they arrive), write_summaries(),
//                         closed (the file, in the temp folder, is deleted
//                         after each iteration, outside the timing)
//   BM_Sweep_Hdf5ReadBack the same plus reading the file back for the report
//                         and digest, as `pfmab summary` and a resumed
//                         `pfmab run -o` do
//   BM_Sweep_Paired       NoOutput, Hdf5, Hdf5, NoOutput in every iteration:
//                         their ratio, robust to the machine's drift
//
// and, on a file of the same sweep written once, what a resumed run pays to
// summarise a cell that an earlier run completed (its rows replayed from the
// file into the summary):
//
//   BM_Summaries_Replay   ResultsWriter::write_summaries() on the file
//                         reopened, which summarises its complete cell again
//
// and, for an MPI run, what moving the sweep's rows from a rank to rank 0
// costs each side (BM_RankRows).
//
// `writer_cpu_s` is the processor time of the writer thread: on a machine
// whose cores all run workers, writing costs at least that much of them.
//
// One iteration is one whole sweep (Iterations(1)); repeat with
// --benchmark_repetitions. This program's own flags: `--replications=N`
// (default 10000) sets the replications of the one cell (the CTest smoke run
// uses a small N); `--mode=aggregated|per-pull` (default aggregated, as
// `pfmab run`) the fidelity.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "pfmab/io/experiment.hpp"
#include "pfmab/io/report.hpp"
#include "pfmab/io/results_file.hpp"
#include "pfmab/io/row_block.hpp"
#include "pfmab/run/run_experiment.hpp"
#include "pfmab/run/world.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/replication.hpp"
#include "pfmab/sim/runner.hpp"
#include "pfmab/stats/summary.hpp"
#include "pfmab/util/digest.hpp"

#include "bench_main.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// The workload: the synthetic game of the paper's Fig. 1 (M = 4, K = 9),
// Gaussian rewards, sigma = 1, alpha = 0.5, T = 1e4, the default checkpoint
// grid (40 log + 20 linear points), seed 1: one cell of short replications.
constexpr std::int64_t kHorizon = 10'000;
std::uint64_t replications = 10'000;  // --replications=N
std::string mode = "aggregated";      // --mode=NAME

// The experiment as `pfmab run --means ... --alpha 0.5 -T 1e4 -R N` builds it.
const pfmab::io::Experiment& experiment() {
  using pfmab::io::flag_values;
  static const pfmab::io::Experiment loaded = pfmab::io::load_experiment(
      std::nullopt, {flag_values("instance.means", PFMAB_SHARED_DATA "/synthetic_4x9.csv"),
                     flag_values("alpha", "0.5"), flag_values("horizon", std::to_string(kHorizon)),
                     flag_values("replications", std::to_string(replications)),
                     flag_values("seed", "1"), flag_values("mode", mode)});
  return loaded;
}
const std::vector<pfmab::sim::Cell>& cells() { return experiment().cells; }

// `pfmab run --threads N --quiet`, with `-o output` if one is given.
pfmab::run::Options options(const benchmark::State& state,
                            const std::filesystem::path& output = {}) {
  pfmab::run::Options o;
  o.threads = static_cast<unsigned>(state.range(0));
  o.output = output;
  return o;
}

// One run; returns its digest.
std::string run_once(const pfmab::run::Options& options, pfmab::run::Timings& timings) {
  pfmab::run::OneRank alone;
  const auto outcome = pfmab::run::run_experiment(experiment(), options, alone);
  timings = outcome.timings;
  return outcome.report->digest;
}

std::filesystem::path output_path() {
  return std::filesystem::temp_directory_path() /
         fmt::format("pfmab_pipeline_bench_{}.h5", ::getpid());
}

// A benchmark's check failed: the program exits with 1 (for the CTest smoke run).
bool check_failed = false;
void fail(benchmark::State& state, const std::string& message) {
  check_failed = true;
  state.SkipWithError(message.c_str());
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// The digest of the NoOutput run, which the HDF5 runs must reproduce, the
// ReadBack run from the file (empty until NoOutput has run).
std::string& expected_digest() {
  static std::string digest;
  return digest;
}

// Time per replication (printed as e.g. "95us") and the seconds spent in
// each part of an iteration, averaged over the iterations.
void report(benchmark::State& state, const std::vector<std::pair<const char*, double>>& parts) {
  const auto total = static_cast<double>(state.iterations()) *
                     static_cast<double>(experiment().total_replications());
  state.SetItemsProcessed(static_cast<std::int64_t>(total));
  state.counters["per_rep"] =
      benchmark::Counter(total, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  for (const auto& [name, value] : parts)
    state.counters[name] = benchmark::Counter(value, benchmark::Counter::kAvgIterations);
}

//------------------------------------------------------------------------------
// No output: accumulator and digest, as `pfmab run` without -o
//------------------------------------------------------------------------------

void BM_Sweep_NoOutput(benchmark::State& state) {
  double sweep_s = 0.0;
  pfmab::run::Timings timings;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    expected_digest() = run_once(options(state), timings);
    sweep_s += seconds(Clock::now() - t0);
  }
  report(state, {{"sweep_s", sweep_s}});
}

//------------------------------------------------------------------------------
// HDF5: ResultsWriter as `pfmab run -o` drives it
//------------------------------------------------------------------------------

// Seconds spent in each step of an HDF5 run, summed over runs.
struct Hdf5Times {
  double create = 0.0, sweep = 0.0, summaries = 0.0, close = 0.0, read = 0.0;
  double writer_cpu = 0.0;
};

// One run as a new `pfmab run -o` does it; returns the run's digest.
// `read_back`: then also reads the file back, as `pfmab summary` and a
// resumed `pfmab run -o` do, and returns the file's digest instead. The file
// is deleted by the caller.
std::string sweep_hdf5(const pfmab::run::Options& options, bool read_back, Hdf5Times& times) {
  pfmab::run::Timings timings;
  auto digest = run_once(options, timings);
  times.create += timings.open;
  times.sweep += timings.sweep;
  times.summaries += timings.summaries;
  times.close += timings.close;
  times.writer_cpu += timings.writer_cpu;
  if (!read_back) return digest;
  const auto t0 = Clock::now();
  const auto [reports, file_digest] =
      pfmab::io::read_reports(pfmab::io::ResultsReader(options.output));
  benchmark::DoNotOptimize(reports.data());
  times.read += seconds(Clock::now() - t0);
  return file_digest;
}

void sweep_hdf5(benchmark::State& state, bool read_back) {
  const auto path = output_path();
  std::filesystem::remove(path);
  Hdf5Times times;
  std::string digest_hex;
  for (auto _ : state) {
    digest_hex = sweep_hdf5(options(state, path), read_back, times);
    state.PauseTiming();
    std::filesystem::remove(path);
    state.ResumeTiming();
  }
  if (!expected_digest().empty() && digest_hex != expected_digest()) {
    fail(state, fmt::format("digest {} differs from the run without output's {}", digest_hex,
                            expected_digest()));
  }
  std::vector<std::pair<const char*, double>> parts{{"create_s", times.create},
                                                    {"sweep_s", times.sweep},
                                                    {"summaries_s", times.summaries},
                                                    {"close_s", times.close},
                                                    {"writer_cpu_s", times.writer_cpu}};
  if (read_back) parts.emplace_back("read_s", times.read);
  report(state, parts);
}

void BM_Sweep_Hdf5(benchmark::State& state) { sweep_hdf5(state, false); }
void BM_Sweep_Hdf5ReadBack(benchmark::State& state) { sweep_hdf5(state, true); }

// The two runs in every iteration in the order none, HDF5, HDF5, none, so
// that their ratio is taken seconds apart and neither a drift of the shared
// machine's speed nor the order of the runs favours one side: the median of
// `hdf5_ratio` over repetitions is the figure to quote. hdf5_ratio = (the
// HDF5 runs, as BM_Sweep_Hdf5) / (the runs without output); sweep_ratio the
// same for the sweeps alone (the HDF5 sweep includes its writer thread's
// work: every row, and each cell's summary as the cell completes).
void BM_Sweep_Paired(benchmark::State& state) {
  const auto path = output_path();
  std::filesystem::remove(path);
  double ratio = 0.0, sweep_ratio = 0.0, none_s = 0.0, hdf5_s = 0.0, summaries_s = 0.0,
         writer_cpu_s = 0.0;
  for (auto _ : state) {
    double none = 0.0, hdf5 = 0.0;
    Hdf5Times times;
    for (const bool write : {false, true, true, false}) {
      const auto start = Clock::now();
      if (!write) {
        pfmab::run::Timings timings;
        benchmark::DoNotOptimize(run_once(options(state), timings));
        none += seconds(Clock::now() - start);
      } else {
        sweep_hdf5(options(state, path), false, times);
        hdf5 += seconds(Clock::now() - start);
        state.PauseTiming();
        std::filesystem::remove(path);
        state.ResumeTiming();
      }
    }
    ratio += hdf5 / none;
    sweep_ratio += times.sweep / none;
    none_s += none / 2;
    hdf5_s += hdf5 / 2;
    summaries_s += times.summaries / 2;
    writer_cpu_s += times.writer_cpu / 2;
  }
  for (const auto& [name, value] : {std::pair{"hdf5_ratio", ratio},
                                    {"sweep_ratio", sweep_ratio},
                                    {"none_s", none_s},
                                    {"hdf5_s", hdf5_s},
                                    {"summaries_s", summaries_s},
                                    {"writer_cpu_s", writer_cpu_s}}) {
    state.counters[name] = benchmark::Counter(value, benchmark::Counter::kAvgIterations);
  }
}

//------------------------------------------------------------------------------
// A resumed run's summary of a cell completed earlier, on one file of the sweep
//------------------------------------------------------------------------------

// The sweep's rows (and summary), written once on 2 threads, deleted at exit.
class RowsFile {
 public:
  RowsFile()
      : path_(std::filesystem::temp_directory_path() /
              fmt::format("pfmab_pipeline_bench_{}_rows.h5", ::getpid())) {
    std::filesystem::remove(path_);
    pfmab::theory::Games games;
    pfmab::io::ResultsWriter writer(path_, experiment(), cells(), games, false);
    pfmab::sim::RunOptions o;
    o.seed = experiment().seed;
    o.replications = experiment().replications(0);  // every cell's
    o.threads = 2;
    pfmab::sim::run_sweep(cells(), o,
                          [&](std::size_t c, std::uint64_t, pfmab::sim::ReplicationResult&& r) {
                            writer.append(c, r);
                          });
  }
  ~RowsFile() { std::filesystem::remove(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

const std::filesystem::path& rows_file() {
  static const RowsFile file;
  return file.path();
}

// write_summaries on the rows file reopened (as a resumed run, outside the
// timing): every row read back and replayed into the cell's summary, whose
// datasets are written.
void BM_Summaries_Replay(benchmark::State& state) {
  const auto& path = rows_file();
  for (auto _ : state) {
    state.PauseTiming();
    {
      pfmab::theory::Games games;
      pfmab::io::ResultsWriter writer(path, experiment(), cells(), games, false);
      state.ResumeTiming();
      writer.write_summaries();
      state.PauseTiming();
    }
    state.ResumeTiming();
  }
}

//------------------------------------------------------------------------------
// An MPI run's rows: what a rank pays to send a block, what rank 0 pays to
// take it in (bench/README.md, "Scaling")
//------------------------------------------------------------------------------

// What rank 0 of an MPI run keeps of every result for its printed report
// (BM_RankRows), as run::run_experiment does: an accumulator per cell and
// the digest.
class RunReport {
 public:
  RunReport() {
    pfmab::theory::Games games;
    for (std::size_t c = 0; c < cells().size(); ++c) {
      accumulators_.emplace_back(pfmab::io::describe(cells()[c], experiment().values[c],
                                                     experiment().replications(c), games));
    }
  }
  void add(std::size_t cell, const pfmab::sim::ReplicationResult& r) {
    accumulators_[cell].add(r);
    r.add_to(digest_);
  }
  // The report, observed, and the digest.
  std::string finish() const {
    for (const auto& a : accumulators_) benchmark::DoNotOptimize(a.report());
    return digest_.hex();
  }

 private:
  std::vector<pfmab::io::CellAccumulator> accumulators_;
  pfmab::Digest digest_;
};

// The sweep's results, computed once.
const std::vector<pfmab::sim::ReplicationResult>& sweep_results() {
  static const auto results = [] {
    auto run = pfmab::sim::RunOptions{};
    run.seed = experiment().seed;
    run.replications = experiment().replications(0);  // its one cell's
    run.threads = 2;
    return pfmab::sim::run_sweep(cells(), run)[0];
  }();
  return results;
}

// Every result in blocks of 256 (the largest a rank is handed), as a rank
// other than 0 sends them (RowBlock::append, write_bytes) and as rank 0
// takes them in before its writer (read_bytes, result, the report's
// accumulator and digest); `send_s` and `receive_s` time the two sides. The
// writer's own work is BM_Sweep_Paired's writer_cpu_s.
void BM_RankRows(benchmark::State& state) {
  const auto& results = sweep_results();
  const auto sent = pfmab::sim::digest_of({results});
  const auto& cell = cells()[0];
  double send_s = 0.0, receive_s = 0.0;
  for (auto _ : state) {
    RunReport leader;
    pfmab::io::RowBlock block;
    std::vector<char> bytes;
    for (std::size_t first = 0; first < results.size(); first += 256) {
      const auto t0 = Clock::now();
      block.reset(0, cell.checkpoints().size(), cell.instance().clients());
      for (std::size_t r = first; r < std::min(first + 256, results.size()); ++r) {
        block.append(results[r]);
      }
      bytes.clear();
      block.write_bytes(bytes);
      const auto t1 = Clock::now();
      const auto rows = pfmab::io::RowBlock::read_bytes(bytes);
      for (std::size_t r = 0; r < rows.rows; ++r) leader.add(0, rows.result(r));
      const auto t2 = Clock::now();
      send_s += seconds(t1 - t0);
      receive_s += seconds(t2 - t1);
    }
    if (leader.finish() != sent) {
      return fail(state, "the rows taken in are not the rows sent");
    }
  }
  report(state, {{"send_s", send_s}, {"receive_s", receive_s}});
}

void register_all() {
  const auto suffix = fmt::format("/replications:{}/mode:{}", replications, mode);
  for (const auto& [name, fn] : {std::pair{"BM_Sweep_NoOutput", &BM_Sweep_NoOutput},
                                 {"BM_Sweep_Hdf5", &BM_Sweep_Hdf5},
                                 {"BM_Sweep_Hdf5ReadBack", &BM_Sweep_Hdf5ReadBack},
                                 {"BM_Sweep_Paired", &BM_Sweep_Paired}}) {
    benchmark::RegisterBenchmark((std::string(name) + suffix).c_str(), fn)
        ->ArgName("threads")
        ->Arg(1)
        ->Arg(2)
        ->Iterations(1)  // one iteration is a whole sweep
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const auto& [name, fn] :
       {std::pair{"BM_Summaries_Replay", &BM_Summaries_Replay}, {"BM_RankRows", &BM_RankRows}}) {
    benchmark::RegisterBenchmark((std::string(name) + suffix).c_str(), fn)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

}  // namespace

int main(int argc, char** argv) {
  return pfmab::bench::run_benchmarks(
      argc, argv, "pfmab_pipeline_bench",
      {{"--replications=",
        [](std::string_view value) -> std::string {
          replications = std::strtoull(std::string(value).c_str(), nullptr, 10);
          return replications == 0 ? "--replications must be at least 1" : "";
        }},
       {"--mode=",
        [](std::string_view value) -> std::string {
          mode = value;
          return mode == "per-pull" || mode == "aggregated"
                     ? ""
                     : "--mode must be per-pull or aggregated";
        }}},
      register_all, check_failed);
}
