// The HDF5 output end to end: what is written is what is read back (and the
// summaries are right); a run killed at any moment resumes to bit-identical
// results; h5py reads the file while it grows; Ctrl-C stops cleanly; an
// output of another experiment is never touched without --overwrite.
//
// The tests that kill or interrupt the real program do it at points defined
// by its progress (the rows counted in the file, the processor time it has
// used), never by the clock: they look with the program stopped (SIGSTOP),
// so that a kill lands exactly where they looked, and what they wait for
// leaves by construction much of the run to do. No test depends on the
// machine's speed or load; wall time only guards against a hang.
// ResultsKillSweep spreads 40 kills over the whole of a short run instead, so
// that some land in the milliseconds in which the file is created or
// reopened (what it checks holds wherever they land). PFMAB_TEST_VERBOSE=1
// prints where the kills and reads landed.
#include "pfmab/io/results_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <hdf5.h>
#include <nlohmann/json.hpp>
#include <signal.h>

#include "pfmab/io/experiment.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/columns.hpp"
#include "pfmab/sim/runner.hpp"
#include "pfmab/theory/bounds.hpp"
#include "pfmab/util/error.hpp"

#include "fixtures.hpp"
#include "io/cell_summary.hpp"
#include "io/hdf5.hpp"
#include "io/results_layout.hpp"
#include "run_cli.hpp"
#include "spawn.hpp"
#include "temp_dir.hpp"
#include "time_used.hpp"

namespace pfmab::testing {
namespace {

namespace fs = std::filesystem;
namespace h5 = io::h5;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------
// Helpers

fs::path write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct ExperimentText {
  std::uint64_t seed;
  std::string alphas;  // TOML array
  std::string horizon;
  std::uint64_t replications;
  std::string mode = "aggregated";

  std::string toml() const {
    return "seed = " + std::to_string(seed) + "\nalpha = " + alphas + "\nhorizon = " + horizon +
           "\nreplications = " + std::to_string(replications) + "\nmode = \"" + mode +
           "\"\n[instance]\nmeans = \"" + shared_data("synthetic_4x9.csv") + "\"\n";
  }
};

// Big enough that a run does seconds of work (about 1.7 ms of CPU per
// replication at T = 1e5 on the 4x9 instance in per-pull mode: 3000 of them
// take 5 CPU-seconds) and counts its rows in three commits (1,024 rows each
// at most): long enough to be killed and interrupted between them. (The
// aggregated mode would finish 3000 replications in a fraction of a second.)
const ExperimentText kBig{2024, "[0.2, 0.9]", "1e5", 1500, "per-pull"};
constexpr std::size_t kBigCells = 2;

std::vector<std::string> run_args(const fs::path& experiment,
                                  const std::optional<fs::path>& output = std::nullopt) {
  std::vector<std::string> args{"run", experiment.string()};
  if (output) {
    args.push_back("-o");
    args.push_back(output->string());
  }
  for (const char* a : {"--quiet", "--json", "--threads", "2"}) args.push_back(a);
  return args;
}

std::string digest_of(const CliResult& r) {
  try {
    return nlohmann::json::parse(r.out).at("digest").get<std::string>();
  } catch (const std::exception& e) {
    return std::string("<no digest: ") + e.what() + "; stdout: " + r.out + "; stderr: " + r.err +
           ">";
  }
}

// The uninterrupted runs of kBig, without -o and with, each made once per
// test program (and only by the tests that need it).
const std::string& big_digest() {
  static const std::string digest = [] {
    TempDir dir("reference");
    const auto plain = run_cli(run_args(write_file(dir / "exp.toml", kBig.toml())));
    EXPECT_EQ(plain.exit_code, 0) << plain.err;
    return digest_of(plain);
  }();
  return digest;
}

h5::Handle open_swmr_read(const fs::path& path) {
  h5::Handle access(H5Pcreate(H5P_FILE_ACCESS));
  h5::check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST),
            "H5Pset_libver_bounds");
  return h5::Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, access.get()));
}

// Every summary series' statistic of an output, by a name of its cell,
// series and statistic (cells/NNNN/summary/<series>/<statistic>).
std::map<std::string, std::vector<double>> summaries_of(const fs::path& path) {
  std::map<std::string, std::vector<double>> out;
  const io::ResultsReader reader(path);
  const auto file = open_swmr_read(path);
  for (const auto& cell : reader.cells()) {
    h5::Handle group(H5Gopen2(file.get(), cell.name.c_str(), H5P_DEFAULT));
    const auto stored = io::read_summary(group.get());
    for (std::size_t s = 0; s < stored.size(); ++s) {
      for (std::size_t k = 0; k < stored[s].size(); ++k) {
        out[cell.name + "/summary/" + io::CellSummary::kSeries[s] + "/" +
            io::CellSummary::kStatistics[k]] = stored[s][k];
      }
    }
  }
  return out;
}

// The uninterrupted run of kBig into a file: its stdout (the JSON report)
// and the summaries it wrote.
struct FileReference {
  std::string report;
  std::map<std::string, std::vector<double>> summaries;
};
const FileReference& big_file_reference() {
  static const FileReference reference = [] {
    TempDir dir("reference-file");
    const auto to_file =
        run_cli(run_args(write_file(dir / "exp.toml", kBig.toml()), dir / "ref.h5"));
    EXPECT_EQ(to_file.exit_code, 0) << to_file.err;
    return FileReference{to_file.out, summaries_of(dir / "ref.h5")};
  }();
  return reference;
}

// The total of replications_done over all cells, or nothing while the file
// cannot be read (not there yet).
std::optional<std::uint64_t> total_done(const fs::path& path) {
  if (!fs::exists(path)) return std::nullopt;
  try {
    const io::ResultsReader reader(path);
    std::uint64_t total = 0;
    for (const auto& cell : reader.cells()) total += cell.done;
    return total;
  } catch (...) {
    return std::nullopt;
  }
}

// Only a guard against a hang: no test waits this long unless it is broken.
constexpr auto kHangGuard = 10min;

// Looks at the process, stopped, until `holds()` (it is then left stopped:
// true) or the process ends (false). A kill or a signal sent while it is
// stopped lands exactly where `holds()` looked, whatever the machine's load;
// the pause between looks is no assumption about timing.
bool stop_when(Spawned& process, const std::function<bool()>& holds) {
  const auto start = Clock::now();
  while (process.stop()) {
    if (holds()) return true;
    process.resume();
    if (Clock::now() - start > kHangGuard) {
      ADD_FAILURE() << "hang guard: the condition awaited never held";
      return false;
    }
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

// A condition on the processor time the process has used: `seconds` more
// than it had used when this was made.
std::function<bool()> cpu_beyond(Spawned& process, double seconds) {
  const double until = process.cpu_seconds() + seconds;
  return [&process, until] { return process.cpu_seconds() >= until; };
}

// What a (possibly killed) run left: readable, replications_done <= rows of
// every per-replication dataset and <= the replications asked for, and the
// rows it counts all written (finite). Returns replications_done per cell.
std::vector<std::uint64_t> check_left_file(const fs::path& path, std::uint64_t replications,
                                           const std::string& when) {
  SCOPED_TRACE(when);
  std::vector<std::uint64_t> done;
  std::optional<io::ResultsReader> reader;
  try {
    reader.emplace(path);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the file left is not readable: " << e.what() << " (size "
                  << fs::file_size(path) << " bytes)";
    return done;
  }
  try {
    const auto file = open_swmr_read(path);
    for (std::size_t c = 0; c < reader->cells().size(); ++c) {
      const auto& cell = reader->cells()[c];
      done.push_back(cell.done);
      EXPECT_LE(cell.done, replications) << cell.name;
      const auto name = cell.name + "/replications";
      h5::Handle set(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT));
      EXPECT_LE(cell.done, h5::dims(set.get())[0]) << name;
      const auto rows = reader->read(c, 0, cell.done);
      std::size_t unwritten = 0;
      for (std::size_t r = 0; r < rows.size(); ++r) {
        for (const double v : rows[r].series.regret) unwritten += std::isfinite(v) ? 0 : 1;
        EXPECT_EQ(rows[r].series.regret.size(), cell.checkpoints.size());
      }
      EXPECT_EQ(unwritten, 0u) << cell.name << ": counted rows hold NaN (not written)";
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "reading the file left failed: " << e.what();
  }
  return done;
}

// ---------------------------------------------------------------------------
// 1. Round trip through the library

class ResultsRoundTrip : public ::testing::Test {
 protected:
  static constexpr std::uint64_t kReplications = 600;  // two 256-row chunks and a partial one

  void SetUp() override {
    const ExperimentText text{11, "[0.3, 0.8]", "2e4", kReplications};
    experiment_ = io::load_experiment(write_file(dir_ / "exp.toml", text.toml()));
    cells_ = experiment_.cells;
    sim::RunOptions options;
    options.seed = experiment_.seed;
    options.replications = experiment_.replications(0);
    options.threads = 2;
    results_ = sim::run_sweep(cells_, options);
  }

  // The summary statistic `stat` of `series` of cell `cell`, per checkpoint.
  static std::vector<double> summary(const fs::path& path, std::size_t cell,
                                     const std::string& series, const std::string& stat) {
    const auto file = open_swmr_read(path);
    h5::Handle group(H5Gopen2(file.get(), io::group_name(cell).c_str(), H5P_DEFAULT));
    const auto& series_names = io::CellSummary::kSeries;
    const auto& stat_names = io::CellSummary::kStatistics;
    const auto s = std::find(series_names.begin(), series_names.end(), series) - series_names.begin();
    const auto k = std::find(stat_names.begin(), stat_names.end(), stat) - stat_names.begin();
    return io::read_summary(group.get()).at(s).at(k);
  }

  TempDir dir_{"roundtrip"};
  io::Experiment experiment_;
  std::vector<sim::Cell> cells_;
  theory::Games games_;
  std::vector<std::vector<sim::ReplicationResult>> results_;
};

TEST_F(ResultsRoundTrip, EveryFieldReadBackEqualsWhatWasWritten) {
  const auto path = dir_ / "out.h5";
  {
    io::ResultsWriter writer(path, experiment_, cells_, games_, false);
    EXPECT_FALSE(writer.resumed());
    for (std::size_t c = 0; c < cells_.size(); ++c) {
      for (const auto& r : results_[c]) writer.append(c, r);
      EXPECT_EQ(writer.done(c), kReplications);
    }
    writer.write_summaries();
  }
  const io::ResultsReader reader(path);
  EXPECT_EQ(reader.attribute("format"), "pfmab-results-9");
  EXPECT_EQ(reader.attribute("sweep_keys"), "alpha");
  EXPECT_EQ(reader.shard(), sim::Shard{});
  EXPECT_FALSE(reader.partial());
  EXPECT_EQ(reader.attribute("experiment_canonical"), experiment_.canonical.dump());
  EXPECT_EQ(reader.attribute("experiment"), experiment_.text);
  EXPECT_EQ(reader.seed(), 11u);
  ASSERT_EQ(reader.cells().size(), 2u);
  for (std::size_t c = 0; c < cells_.size(); ++c) {
    SCOPED_TRACE("cell " + std::to_string(c));
    const auto& stored = reader.cells()[c];
    EXPECT_EQ(stored.name, c == 0 ? "cells/0000" : "cells/0001");
    EXPECT_EQ(stored.alpha, cells_[c].spec().alpha);
    EXPECT_EQ(stored.alpha, c == 0 ? 0.3 : 0.8);
    EXPECT_EQ(stored.horizon, 20'000u);
    EXPECT_EQ(stored.clients, 4u);
    EXPECT_EQ(stored.arms, 9u);
    EXPECT_EQ(stored.algorithm, "pf-ucb");
    EXPECT_EQ(stored.checkpoints, cells_[c].checkpoints());
    EXPECT_EQ(stored.requested, kReplications);
    EXPECT_EQ(stored.done, kReplications);
    EXPECT_EQ(stored.ranges, (std::vector<sim::ReplicationRange>{{0, kReplications}}));
    EXPECT_EQ(stored.mode, "aggregated");
    EXPECT_EQ(stored.rewards, "gaussian");
    // the theory, as computed for the cell
    const auto bounds = cells_[c].algorithm().bounds(cells_[c], games_);
    EXPECT_GT(bounds.theorem1_constant, 0.0);
    EXPECT_EQ(stored.bounds.theorem1_constant, bounds.theorem1_constant);
    EXPECT_EQ(stored.bounds.corollary1_constant, bounds.corollary1_constant);
    EXPECT_EQ(stored.bounds.theorem2_upper, bounds.theorem2_upper);
    EXPECT_EQ(stored.bounds.theorem2_note, bounds.theorem2_note);
    EXPECT_EQ(stored.bounds.log_horizon, bounds.log_horizon);

    const auto all = reader.read(c, 0, kReplications);
    ASSERT_EQ(all.size(), kReplications);
    for (std::size_t r = 0; r < kReplications; ++r) {
      expect_same_result(all[r], results_[c][r], "replication " + std::to_string(r));
    }
    // a block that straddles two 256-row chunks
    const auto some = reader.read(c, 237, 50);
    ASSERT_EQ(some.size(), 50u);
    for (std::size_t r = 0; r < some.size(); ++r) {
      expect_same_result(some[r], results_[c][237 + r], "replication " + std::to_string(237 + r));
    }
  }
}

TEST_F(ResultsRoundTrip, SummariesEqualStatisticsComputedHere) {
  const auto path = dir_ / "out.h5";
  {
    io::ResultsWriter writer(path, experiment_, cells_, games_, false);
    for (std::size_t c = 0; c < cells_.size(); ++c) {
      for (const auto& r : results_[c]) writer.append(c, r);
    }
    writer.write_summaries();
  }
  for (std::size_t c = 0; c < cells_.size(); ++c) {
    SCOPED_TRACE("cell " + std::to_string(c));
    const auto points = cells_[c].checkpoints().size();
    const auto mean = summary(path, c, "regret", "mean");
    const auto median = summary(path, c, "regret", "median");
    const auto std_dev = summary(path, c, "regret", "std");
    const auto low = summary(path, c, "regret", "ci95_low");
    const auto high = summary(path, c, "regret", "ci95_high");
    const auto q05 = summary(path, c, "regret", "q05");
    const auto q95 = summary(path, c, "regret", "q95");
    const auto comm_mean = summary(path, c, "comm_count", "mean");
    const auto mixed_mean = summary(path, c, "mixed_reward", "mean");
    ASSERT_EQ(mean.size(), points);
    ASSERT_EQ(median.size(), points);
    ASSERT_EQ(comm_mean.size(), points);
    for (std::size_t j = 0; j < points; ++j) {
      SCOPED_TRACE("checkpoint " + std::to_string(j));
      std::vector<double> column;
      double comm_sum = 0, mixed_sum = 0;
      for (const auto& r : results_[c]) {
        column.push_back(r.series.regret[j]);
        comm_sum += static_cast<double>(r.series.comm_count[j]);
        mixed_sum += r.series.mixed_reward[j];
      }
      const double n = static_cast<double>(column.size());
      const double expected_mean = std::accumulate(column.begin(), column.end(), 0.0) / n;
      double squares = 0;
      for (const double v : column) squares += (v - expected_mean) * (v - expected_mean);
      const double expected_std = std::sqrt(squares / (n - 1));
      std::sort(column.begin(), column.end());
      // 600 values: the median is halfway between the 300th and 301st
      const double expected_median = (column[299] + column[300]) / 2;
      // numpy's default (linear) quantiles: h = q (n - 1)
      auto quantile = [&](double q) {
        const double h = q * (n - 1);
        const auto i = static_cast<std::size_t>(std::floor(h));
        return column[i] +
               (h - std::floor(h)) * (column[std::min(i + 1, column.size() - 1)] - column[i]);
      };
      EXPECT_DOUBLE_EQ(mean[j], expected_mean);
      EXPECT_DOUBLE_EQ(median[j], expected_median);
      // The file's std sums squared deviations by Welford's update as rows
      // arrive, the reference in a second pass: rounding apart (measured
      // below 1e-13 relative to the mean), they agree. Equal values give 0.
      EXPECT_NEAR(std_dev[j], expected_std, 1e-12 * (std::abs(expected_mean) + expected_std));
      EXPECT_DOUBLE_EQ(q05[j], quantile(0.05));
      EXPECT_DOUBLE_EQ(q95[j], quantile(0.95));
      // Student t, 599 degrees of freedom: t_0.975 = 1.963932... (printed
      // tables: 1.9647 at 500, 1.9623 at 1000)
      EXPECT_NEAR(high[j] - mean[j], 1.9639322 * expected_std / std::sqrt(n),
                  1e-6 * (1 + expected_std));
      EXPECT_NEAR(mean[j] - low[j], high[j] - mean[j], 1e-9 * (1 + std::abs(mean[j])));
      EXPECT_DOUBLE_EQ(comm_mean[j], comm_sum / n);
      EXPECT_DOUBLE_EQ(mixed_mean[j], mixed_sum / n);
    }
    // at the horizon the regret is positive and spread out
    EXPECT_GT(mean.back(), 0.0);
    EXPECT_GT(std_dev.back(), 0.0);
    EXPECT_LE(q05.back(), median.back());
    EXPECT_LE(median.back(), q95.back());
  }
}

TEST_F(ResultsRoundTrip, AnIncompleteCellHasNoSummaryAndResumesWhereItStopped) {
  const auto path = dir_ / "out.h5";
  constexpr std::uint64_t kPartial = 300;  // one full chunk and part of the next
  {
    io::ResultsWriter writer(path, experiment_, cells_, games_, false);
    for (const auto& r : results_[0]) writer.append(0, r);
    for (std::uint64_t r = 0; r < kPartial; ++r) writer.append(1, results_[1][r]);
    writer.write_summaries();
  }
  {
    const io::ResultsReader reader(path);
    EXPECT_EQ(reader.cells()[0].done, kReplications);
    EXPECT_EQ(reader.cells()[1].done, kPartial);
    const auto complete = summary(path, 0, "regret", "mean");
    const auto incomplete = summary(path, 1, "regret", "mean");
    EXPECT_TRUE(
        std::all_of(complete.begin(), complete.end(), [](double v) { return std::isfinite(v); }));
    EXPECT_TRUE(std::all_of(incomplete.begin(), incomplete.end(), [](double v) {
      return std::isnan(v);
    })) << "a cell without all its replications has a summary";
  }
  {
    io::ResultsWriter writer(path, experiment_, cells_, games_, false);
    EXPECT_TRUE(writer.resumed());
    EXPECT_EQ(writer.done(0), kReplications);
    EXPECT_EQ(writer.done(1), kPartial);
    for (std::uint64_t r = kPartial; r < kReplications; ++r) writer.append(1, results_[1][r]);
    writer.write_summaries();
  }
  const io::ResultsReader reader(path);
  EXPECT_EQ(reader.cells()[1].done, kReplications);
  // the time of every replication, the continued run's added to the first's
  // (in replication order, as the run's report adds them: the same bits)
  sim::TimeUsed used;
  for (const auto& r : results_[1]) used += r.used;
  ASSERT_TRUE(reader.cells()[1].used.has_value());
  EXPECT_EQ(reader.cells()[1].used->replications, kReplications);
  EXPECT_EQ(reader.cells()[1].used->cpu_seconds, used.cpu_seconds);
  EXPECT_EQ(reader.cells()[1].used->wall_seconds, used.wall_seconds);
  EXPECT_GT(used.cpu_seconds, 0.0);
  const auto all = reader.read(1, 0, kReplications);
  for (std::size_t r = 0; r < kReplications; ++r) {
    expect_same_result(all[r], results_[1][r], "replication " + std::to_string(r));
  }
  const auto mean = summary(path, 1, "regret", "mean");
  double sum = 0;
  for (const auto& r : results_[1]) sum += r.series.regret.back();
  EXPECT_DOUBLE_EQ(mean.back(), sum / static_cast<double>(kReplications));
}

TEST_F(ResultsRoundTrip, AnOutputThatRecordsNoTimesIsReadAndContinuedWithThemUnknown) {
  // an output of format 9 made before pfmab recorded time_used: the same
  // with that dataset removed
  const auto path = dir_ / "out.h5";
  constexpr std::uint64_t kPartial = 300;
  {
    io::ResultsWriter writer(path, experiment_, cells_, games_, false);
    for (std::uint64_t r = 0; r < kPartial; ++r) writer.append(0, results_[0][r]);
  }
  {
    h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    h5::check(H5Ldelete(file.get(), "cells/0000/time_used", H5P_DEFAULT), "H5Ldelete");
  }
  {
    io::ResultsWriter writer(path, experiment_, cells_, games_, false);
    ASSERT_TRUE(writer.resumed());
    for (std::uint64_t r = kPartial; r < kReplications; ++r) writer.append(0, results_[0][r]);
    for (const auto& r : results_[1]) writer.append(1, r);
    writer.write_summaries();
  }
  const io::ResultsReader reader(path);
  EXPECT_EQ(reader.cells()[0].done, kReplications);
  EXPECT_FALSE(reader.cells()[0].used.has_value()) << "a time made up for rows not measured";
  ASSERT_TRUE(reader.cells()[1].used.has_value());
  EXPECT_EQ(reader.cells()[1].used->replications, kReplications);
  const auto [reports, digest] = io::read_reports(reader);
  EXPECT_EQ(reports[0].used.replications, 0u);
  EXPECT_TRUE(std::isnan(reports[0].used.cpu_per_replication()));
  EXPECT_EQ(reports[1].used.replications, kReplications);
  std::ostringstream table;
  io::print_table(table, reader.seed(), digest, reports);
  EXPECT_EQ(table.str().find("nan"), std::string::npos) << table.str();
  // as printed: NaN is null
  const auto json = nlohmann::json::parse(io::to_json(reader.seed(), digest, reports).dump());
  EXPECT_TRUE(json["cells"][0]["cpu_seconds"].is_null()) << json;
  EXPECT_EQ(json["cells"][0]["timed_replications"], 0) << json;
  EXPECT_EQ(json["cells"][1]["timed_replications"], kReplications) << json;
}

TEST_F(ResultsRoundTrip, ACellIsSummarisedWhenItsLastRowArrives) {
  // no write_summaries(): cell 0's summary is written by the append that
  // completes it, while cell 1 is still running
  const auto path = dir_ / "out.h5";
  {
    io::ResultsWriter writer(path, experiment_, cells_, games_, false);
    for (const auto& r : results_[0]) writer.append(0, r);
    for (std::uint64_t r = 0; r < 10; ++r) writer.append(1, results_[1][r]);
  }
  const auto complete = summary(path, 0, "regret", "mean");
  const auto running = summary(path, 1, "regret", "mean");
  EXPECT_TRUE(
      std::all_of(complete.begin(), complete.end(), [](double v) { return std::isfinite(v); }));
  EXPECT_TRUE(std::all_of(running.begin(), running.end(), [](double v) { return std::isnan(v); }));
  double sum = 0;
  for (const auto& r : results_[0]) sum += r.series.regret.back();
  EXPECT_DOUBLE_EQ(complete.back(), sum / static_cast<double>(kReplications));
}

TEST_F(ResultsRoundTrip, AnOutputOfAnotherFormatIsNamedAsSuch) {
  const auto path = dir_ / "old.h5";
  { io::ResultsWriter writer(path, experiment_, cells_, games_, false); }
  {
    // what an earlier pfmab wrote (format 1: no bounds, no mode)
    h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    ASSERT_GE(H5Adelete(file.get(), "format"), 0);
    h5::write_attribute(file.get(), "format", std::string("pfmab-results-1"));
  }
  try {
    io::ResultsReader reader(path);
    ADD_FAILURE() << "an output of format 1 was read";
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("format 'pfmab-results-1'"), std::string::npos) << message;
    EXPECT_NE(message.find("--overwrite"), std::string::npos) << message;
  }
}

TEST_F(ResultsRoundTrip, AVariableLengthFormatIsNamedAsAnOlderFormatWithoutReadingIt) {
  // pfmab-results-4 and earlier stored strings variable-length, read through
  // libhdf5's global heap (whose reader fails badly on damaged files): the
  // reader recognises them by their type and reads no further
  const auto path = dir_ / "old.h5";
  { io::ResultsWriter writer(path, experiment_, cells_, games_, false); }
  {
    h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    ASSERT_GE(H5Adelete(file.get(), "format"), 0);
    h5::Handle type(H5Tcopy(H5T_C_S1));
    ASSERT_GE(H5Tset_size(type.get(), H5T_VARIABLE), 0);
    h5::Handle space(H5Screate(H5S_SCALAR));
    h5::Handle attr(
        H5Acreate2(file.get(), "format", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
    const char* text = "pfmab-results-4";
    ASSERT_GE(H5Awrite(attr.get(), type.get(), &text), 0);
  }
  try {
    io::ResultsReader reader(path);
    ADD_FAILURE() << "an output with a variable-length format was read";
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("variable-length format attribute, as pfmab-results-4 and earlier"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("--overwrite"), std::string::npos) << message;
  }
}

TEST_F(ResultsRoundTrip, ANewerFormatIsNamedAsNewerNotAsOneToRerun) {
  const auto path = dir_ / "new.h5";
  { io::ResultsWriter writer(path, experiment_, cells_, games_, false); }
  {
    h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    ASSERT_GE(H5Adelete(file.get(), "format"), 0);
    h5::write_attribute(file.get(), "format", std::string("pfmab-results-99"));
  }
  try {
    io::ResultsReader reader(path);
    ADD_FAILURE() << "an output of format 99 was read";
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("format 'pfmab-results-99', newer than this pfmab reads"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.find("--overwrite"), std::string::npos) << message;
  }
}

TEST_F(ResultsRoundTrip, AnAttributeOfManyValuesIsRefusedNotReadPastItsEnd) {
  const auto path = dir_ / "damaged.h5";
  { io::ResultsWriter writer(path, experiment_, cells_, games_, false); }
  {
    h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    ASSERT_GE(H5Adelete(file.get(), "shard"), 0);
    const hsize_t three = 3;
    h5::Handle space(H5Screate_simple(1, &three, nullptr));
    h5::Handle attr(
        H5Acreate2(file.get(), "shard", H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT, H5P_DEFAULT));
    const double values[3] = {1, 2, 3};
    ASSERT_GE(H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, values), 0);
  }
  try {
    io::ResultsReader reader(path);
    ADD_FAILURE() << "an output with a 3-element shard attribute was read";
  } catch (const io::UnreadableOutput& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("attribute 'shard' holds 3 values, not one"), std::string::npos)
        << message;
  }
}

TEST_F(ResultsRoundTrip, AWriterRefusesAnotherExperimentAndLeavesItAlone) {
  const auto path = dir_ / "out.h5";
  {
    io::ResultsWriter writer(path, experiment_, cells_, games_, false);
    for (const auto& r : results_[0]) writer.append(0, r);
  }
  const auto before = read_bytes(path);
  auto other = experiment_;
  other.seed = 12;
  other.canonical["seed"] = 12;
  EXPECT_THROW(io::ResultsWriter(path, other, cells_, games_, false), UserError);
  EXPECT_EQ(read_bytes(path), before);
  {
    io::ResultsWriter writer(path, other, cells_, games_, true);
    EXPECT_FALSE(writer.resumed());
    EXPECT_EQ(writer.done(0), 0u);
  }
  EXPECT_EQ(io::ResultsReader(path).seed(), 12u);
}

TEST_F(ResultsRoundTrip, ASecondWriterOfOneProcessIsRefusedBeforeItReadsTheFile) {
  // two threads of one program (Python's) on one output: the second would
  // read the file the first is writing as another experiment's and advise
  // overwriting it, or share the name of the file being built
  const auto path = dir_ / "out.h5";
  const io::OptionNames keywords{.output = "output", .overwrite = "overwrite=True"};
  auto other = experiment_;
  other.seed = 12;
  other.canonical["seed"] = 12;
  {
    io::ResultsWriter first(path, experiment_, cells_, games_, false);
    for (const bool overwrite : {false, true}) {
      try {
        io::ResultsWriter second(path, other, cells_, games_, overwrite, {}, keywords);
        ADD_FAILURE() << "a second writer of one output was opened, overwrite " << overwrite;
      } catch (const UserError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "output '" + path.string() +
                      "' is being written by another run in this process (wait for it, or "
                      "choose another output)");
      }
    }
  }
  // the claim goes with the first writer; the messages name the options as asked
  try {
    io::ResultsWriter second(path, other, cells_, games_, false, {}, keywords);
    ADD_FAILURE() << "another experiment's output was continued";
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_TRUE(message.ends_with("; use overwrite=True to replace it, or choose another output"))
        << message;
  }
  io::ResultsWriter again(path, experiment_, cells_, games_, false);
  EXPECT_TRUE(again.resumed());
}

// ---------------------------------------------------------------------------
// 2. SIGKILL at several points, then the same command: bit-identical

TEST(ResultsResume, KilledAtSeveralPointsThenRerunGivesTheUninterruptedDigest) {
  const auto& digest = big_digest();
  ASSERT_EQ(digest.size(), 16u);
  const auto& reference = big_file_reference();
  const auto& report = reference.report;
  ASSERT_EQ(digest_of({0, report, ""}), digest) << "-o changes the results";
  TempDir dir("kill");
  const auto experiment = write_file(dir / "exp.toml", kBig.toml());
  const auto output = dir / "out.h5";
  const auto args = run_args(experiment, output);
  const std::uint64_t total = kBigCells * kBig.replications;

  auto counted = [&] { return total_done(output).value_or(0); };
  // Where each kill lands. The run does about 5 CPU-seconds of work (3,000
  // replications) and counts its rows in commits of 1,024 rows (so at 1,024,
  // 2,268 and 3,000 when it starts from nothing): each point but the first
  // waits for a state that leaves, by construction, seconds of processor
  // time to do, and is looked at with the program stopped, so the kill
  // lands there (`lands`) whatever the machine's load.
  struct KillPoint {
    std::string what;
    bool lands;
    std::function<bool(Spawned&)> stop;  // false if the run ended first
  };
  const std::vector<KillPoint> points{
      // before the program has got as far as creating the file, or not
      {"at once", false, [](Spawned&) { return true; }},
      // rows computed (a first chunk written, perhaps), none counted yet: a
      // tenth of the run's processor time
      {"before the first commit", true,
       [&](Spawned& p) { return stop_when(p, cpu_beyond(p, 0.5)); }},
      // right after a commit, none of the next rows written
      {"at a commit", true,
       [&](Spawned& p) {
         const auto before = counted();
         return stop_when(p, [&] { return counted() > before; });
       }},
      // in the run that continues it, rows written that no commit counts
      // yet (at least 732 replications, 1.2 CPU-seconds, are left to do)
      {"between two commits", true,
       [&](Spawned& p) { return stop_when(p, cpu_beyond(p, 0.5)); }},
  };
  std::vector<std::uint64_t> previous(kBigCells, 0);
  for (const auto& point : points) {
    SCOPED_TRACE("kill " + point.what);
    auto process = spawn_cli(args);
    const bool stopped = point.stop(*process);
    const auto where = counted();
    process->signal(SIGKILL);
    const auto r = process->wait();
    if (point.lands) {
      ASSERT_TRUE(stopped && process->killed_by(SIGKILL))
          << "the run ended before the kill (exit " << r.exit_code << "): " << r.err;
      EXPECT_EQ(counted(), where) << "the file changed after the kill";
    } else if (!process->killed_by(SIGKILL)) {
      // it finished first: then it must have finished properly
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(digest_of(r), digest);
    }
    if (!fs::exists(output)) continue;
    const auto done = check_left_file(output, kBig.replications, "after kill " + point.what);
    ASSERT_EQ(done.size(), kBigCells);
    for (std::size_t c = 0; c < kBigCells; ++c) {
      EXPECT_GE(done[c], previous[c]) << "cell " << c << ": finished replications were lost";
    }
    if (std::getenv("PFMAB_TEST_VERBOSE")) {
      std::cout << "kill " << point.what << " after " << process->cpu_seconds()
                << " CPU-s: " << (process->killed_by(SIGKILL) ? "killed" : "had finished")
                << ", done";
      for (const auto d : done) std::cout << " " << d;
      std::cout << "\n";
    }
    previous = done;
  }
  const auto final_run = run_cli(args);
  ASSERT_EQ(final_run.exit_code, 0) << final_run.err;
  EXPECT_EQ(digest_of(final_run), digest);
  // the whole report (statistics too), not only the digest; what the
  // replications took varies from run to run
  EXPECT_EQ(without_time_used(final_run.out), without_time_used(report));
  const auto done = check_left_file(output, kBig.replications, "after the final run");
  EXPECT_EQ(done, std::vector<std::uint64_t>(kBigCells, kBig.replications));
  // the summaries too, bit for bit (built as rows arrive, after a resume
  // from the rows replayed)
  const auto summaries = summaries_of(output);
  ASSERT_EQ(summaries.size(), reference.summaries.size());
  for (const auto& [name, values] : reference.summaries) {
    EXPECT_TRUE(std::all_of(values.begin(), values.end(), [](double v) { return !std::isnan(v); }))
        << name;
    EXPECT_EQ(summaries.at(name), values) << name;
  }
  const auto summary = run_cli({"summary", output.string(), "--json"});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_EQ(digest_of(summary), digest);
}

// The same property wherever the kill lands, including the few milliseconds
// in which the file is created or reopened: a short run of many small cells
// (so creating, reopening and summarising take a while) is killed at delays
// spread evenly over its whole duration (measured first); each time the same
// command must then finish with the uninterrupted digest.
class ResultsKillSweep : public ::testing::Test {
 protected:
  static constexpr int kKills = 40;

  void SetUp() override {
    experiment_ =
        write_file(dir_ / "exp.toml",
                   ExperimentText{5, "[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]",
                                  "[2e3, 5e3]", 4}
                       .toml());
    const auto plain = run_cli(run_args(experiment_));
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    digest_ = digest_of(plain);
  }

  // Kills kKills runs into `output` (prepared by `prepare` each time) at
  // delays spread over `span`, and continues each with the same command.
  void kill_and_continue(const fs::path& output, const std::function<void()>& prepare,
                         Clock::duration span) {
    const auto args = run_args(experiment_, output);
    // failures by message: how many, and the first delay and file size
    struct Failure {
      int count = 0;
      double first_delay_ms = 0;
      std::uintmax_t size = 0;
    };
    std::map<std::string, Failure> failures;
    for (int i = 0; i < kKills; ++i) {
      prepare();
      const auto delay = span * i / kKills;
      {
        auto process = spawn_cli(args);
        std::this_thread::sleep_until(Clock::now() + delay);
        process->signal(SIGKILL);
        process->wait();
      }
      if (!fs::exists(output)) continue;
      const auto size = fs::file_size(output);
      const auto again = run_cli(args);
      if (again.exit_code == 0 && digest_of(again) == digest_) continue;
      auto message = "exit " + std::to_string(again.exit_code) + ": " + again.err;
      if (again.exit_code == 0) message += " wrong digest " + digest_of(again);
      // the path varies with the test: keep the message itself
      auto& failure = failures[message];
      if (failure.count++ == 0) {
        failure.first_delay_ms = std::chrono::duration<double, std::milli>(delay).count();
        failure.size = size;
      }
    }
    for (const auto& [message, failure] : failures) {
      ADD_FAILURE() << failure.count << " of " << kKills
                    << " kills left a file that the same command does not continue (first "
                       "after "
                    << failure.first_delay_ms << " ms of "
                    << std::chrono::duration<double, std::milli>(span).count() << " ms, file of "
                    << failure.size << " bytes): " << message;
    }
  }

  TempDir dir_{"sweep"};
  fs::path experiment_;
  std::string digest_;
};

TEST_F(ResultsKillSweep, AnywhereInANewRun) {
  const auto output = dir_ / "out.h5";
  const auto start = Clock::now();
  const auto first = run_cli(run_args(experiment_, output));
  const auto span = Clock::now() - start;
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(digest_of(first), digest_);
  kill_and_continue(
      output, [&] { fs::remove(output); }, span);
}

TEST_F(ResultsKillSweep, AnywhereInARunThatReopensACompleteFile) {
  const auto complete = dir_ / "complete.h5";
  const auto output = dir_ / "out.h5";
  const auto first = run_cli(run_args(experiment_, complete));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // a run on a complete file reopens it, finds nothing to do, rewrites the
  // summaries and reports
  fs::copy_file(complete, output);
  const auto start = Clock::now();
  const auto again = run_cli(run_args(experiment_, output));
  const auto span = Clock::now() - start;
  ASSERT_EQ(again.exit_code, 0) << again.err;
  ASSERT_EQ(digest_of(again), digest_);
  kill_and_continue(
      output, [&] { fs::copy_file(complete, output, fs::copy_options::overwrite_existing); }, span);
}

// ---------------------------------------------------------------------------
// 3. h5py reads the file while a run appends to it

constexpr const char* kSwmrReadScript = R"(
import json, os, sys
import h5py, numpy as np
path = sys.argv[1]
if not os.path.exists(path):
    print(json.dumps(None))
    sys.exit(0)
out = []
with h5py.File(path, 'r', libver='latest', swmr=True) as f:
    for name in sorted(f['cells']):
        g = f['cells'][name]
        done = int(g['replications_done'][0])
        records = g['replications']
        rows = records[0:done]['regret']
        out.append({'done': done, 'rows': int(records.shape[0]),
                    'read': int(rows.shape[0]),
                    'finite': bool(np.all(np.isfinite(rows)))})
print(json.dumps(out))
)";

// A run that cannot end while the test looks (10^9 replications a cell,
// about a day of processor time), but counts rows many times a second (an
// aggregated replication takes a tenth of a millisecond; a commit takes
// 1,024 rows): h5py reads it until it has seen the count grow, then the run
// is interrupted.
const ExperimentText kEndless{2024, "[0.2, 0.9]", "1e5", 1'000'000'000};

TEST(ResultsSwmr, H5pyReadsTheFileWhileARunAppends) {
  TempDir dir("swmr");
  const auto experiment = write_file(dir / "exp.toml", kEndless.toml());
  const auto output = dir / "out.h5";
  const auto script = write_file(dir / "read.py", kSwmrReadScript);

  auto process = spawn_cli(run_args(experiment, output));
  std::vector<std::uint64_t> last(kBigCells, 0);
  int reads_during_run = 0, growths = 0;
  const auto start = Clock::now();
  // until two reads during the run have seen more rows counted than the
  // read before them
  while (growths < 2 && process->running()) {
    ASSERT_LT(Clock::now() - start, kHangGuard) << "hang guard";
    const auto r = run_program(PFMAB_PYTHON, {script.string(), output.string()});
    ASSERT_EQ(r.exit_code, 0) << "h5py could not read the file while it grows:\n" << r.err;
    const auto reads = nlohmann::json::parse(r.out);
    if (reads.is_null()) continue;  // not created yet
    ASSERT_EQ(reads.size(), kBigCells);
    ++reads_during_run;
    bool grew = false;
    for (std::size_t c = 0; c < kBigCells; ++c) {
      SCOPED_TRACE("cell " + std::to_string(c));
      const auto done = reads[c]["done"].get<std::uint64_t>();
      EXPECT_LE(done, reads[c]["rows"].get<std::uint64_t>());
      EXPECT_EQ(reads[c]["read"].get<std::uint64_t>(), done);
      EXPECT_TRUE(reads[c]["finite"].get<bool>()) << "a counted row is not written (NaN)";
      EXPECT_GE(done, last[c]) << "replications_done went down";
      grew = grew || done > last[c];
      last[c] = done;
    }
    if (grew) ++growths;
  }
  ASSERT_TRUE(process->running()) << "the endless run ended: " << process->wait().err;
  process->signal(SIGINT);
  const auto r = process->wait();
  EXPECT_EQ(r.exit_code, 130) << r.err;
  if (std::getenv("PFMAB_TEST_VERBOSE")) {
    std::cout << "h5py: " << reads_during_run << " reads during the run, " << growths
              << " saw the count grow\n";
  }
  // and once the writer is done, every row written is counted
  const auto after = run_program(PFMAB_PYTHON, {script.string(), output.string()});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  const auto cells = nlohmann::json::parse(after.out);
  ASSERT_EQ(cells.size(), kBigCells);
  for (std::size_t c = 0; c < kBigCells; ++c) {
    EXPECT_GE(cells[c]["done"].get<std::uint64_t>(), last[c]);
    EXPECT_EQ(cells[c]["rows"].get<std::uint64_t>(), cells[c]["done"].get<std::uint64_t>());
    EXPECT_TRUE(cells[c]["finite"].get<bool>());
  }
}

// ---------------------------------------------------------------------------
// 4. SIGINT stops cleanly

// the output, then the name of every column
constexpr const char* kPlainReadScript = R"(
import json, sys
import h5py
names = sys.argv[2:]
out = []
with h5py.File(sys.argv[1], 'r') as f:
    for name in sorted(f['cells']):
        g = f['cells'][name]
        records = g['replications']
        out.append({'done': int(g['replications_done'][0]),
                    'rows': [int(records.fields(n)[:].shape[0]) for n in names]})
print(json.dumps(out))
)";

TEST(ResultsInterrupt, SigintWritesFinishedReplicationsClosesTheFileAndTheRunContinues) {
  const auto& digest = big_digest();
  TempDir dir("sigint");
  const auto experiment = write_file(dir / "exp.toml", kBig.toml());
  const auto output = dir / "out.h5";
  const auto script = write_file(dir / "read.py", kPlainReadScript);
  const auto args = run_args(experiment, output);

  auto process = spawn_cli(args);
  // once some replications are counted the handler is surely installed;
  // the first commit (1,024 rows) leaves about 2,000 replications to do
  ASSERT_TRUE(stop_when(*process, [&] { return total_done(output).value_or(0) > 0; }))
      << "the run ended before it counted any row";
  const auto committed = *total_done(output);
  process->resume();
  // replications finished since then wait in memory, uncounted, for the
  // next commit: half a CPU-second's (about 300), of the 3 or so left
  ASSERT_TRUE(stop_when(*process, cpu_beyond(*process, 0.5)))
      << "the run ended before it could be interrupted";
  ASSERT_EQ(total_done(output), committed) << "a commit came sooner than 1,024 rows";
  const double cpu_at_signal = process->cpu_seconds();
  process->signal(SIGINT);
  process->resume();
  const auto r = process->wait();
  // a stop takes a replication's time per thread and the closing of the
  // file, not seconds (processor time: wall time would depend on the load)
  EXPECT_LT(process->cpu_seconds() - cpu_at_signal, 2.0 * 2) << "a stop must be prompt";
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_TRUE(process->exited()) << "killed by the signal instead of stopping";
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("run the same command to continue"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;

  // closed properly: a plain (not SWMR) reader opens it, and every row is counted
  std::vector<std::string> script_args{script.string(), output.string()};
  sim::for_each_column([&](const auto& column) { script_args.push_back(column.name); });
  const auto read = run_program(PFMAB_PYTHON, script_args);
  ASSERT_EQ(read.exit_code, 0) << "plain h5py.File(path, 'r') fails:\n" << read.err;
  const auto cells = nlohmann::json::parse(read.out);
  ASSERT_EQ(cells.size(), kBigCells);
  std::uint64_t total = 0;
  for (const auto& cell : cells) {
    const auto done = cell["done"].get<std::uint64_t>();
    total += done;
    for (const auto& rows : cell["rows"]) EXPECT_EQ(rows.get<std::uint64_t>(), done) << cell;
  }
  EXPECT_GT(total, committed) << "the finished replications were not written";
  EXPECT_LT(total, kBigCells * kBig.replications);
  EXPECT_NE(
      r.err.find(std::to_string(total) + " of " + std::to_string(kBigCells * kBig.replications)),
      std::string::npos)
      << r.err;

  const auto again = run_cli(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(digest_of(again), digest);
  // what every replication took, the interrupted run's and the continued one's
  const io::ResultsReader reader(output);  // kept: the loop reads its cells
  for (const auto& cell : reader.cells()) {
    ASSERT_TRUE(cell.used.has_value()) << cell.name;
    EXPECT_EQ(cell.used->replications, kBig.replications) << cell.name;
    EXPECT_GT(cell.used->cpu_seconds, 0.0) << cell.name;
    EXPECT_GT(cell.used->wall_seconds, 0.0) << cell.name;
  }
}

// ---------------------------------------------------------------------------
// 5. Another experiment's output is refused; a complete one is just reported

TEST(ResultsExisting, AnotherExperimentsOutputIsRefusedUnlessOverwrite) {
  TempDir dir("existing");
  const ExperimentText small{1, "[0.2, 0.9]", "1e4", 20};
  auto other = small;
  other.seed = 2;
  const auto first = write_file(dir / "first.toml", small.toml());
  const auto second = write_file(dir / "second.toml", other.toml());
  const auto output = dir / "out.h5";

  const auto made = run_cli(run_args(first, output));
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto before = read_bytes(output);
  const auto refused = run_cli(run_args(second, output));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("different experiment"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--overwrite"), std::string::npos) << refused.err;
  EXPECT_TRUE(refused.out.empty()) << refused.out;
  EXPECT_EQ(read_bytes(output), before) << "the refused run changed the file";

  // the same through a flag: the seed is part of the experiment
  auto flagged = run_args(first, output);
  flagged.insert(flagged.end(), {"--seed", "3"});
  const auto refused_flag = run_cli(flagged);
  EXPECT_EQ(refused_flag.exit_code, 2);
  EXPECT_NE(refused_flag.err.find("different experiment"), std::string::npos) << refused_flag.err;
  EXPECT_EQ(read_bytes(output), before);

  auto overwrite = run_args(second, output);
  overwrite.push_back("--overwrite");
  const auto replaced = run_cli(overwrite);
  ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
  const auto plain = run_cli(run_args(second));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(digest_of(replaced), digest_of(plain));
  EXPECT_NE(digest_of(replaced), digest_of(made));
  EXPECT_EQ(io::ResultsReader(output).seed(), 2u);
}

TEST(ResultsExisting, ACompleteOutputIsReportedWithoutNewWork) {
  TempDir dir("complete");
  const auto experiment =
      write_file(dir / "exp.toml", ExperimentText{3, "[0.2, 0.9]", "1e4", 20}.toml());
  const auto output = dir / "out.h5";
  const auto made = run_cli(run_args(experiment, output));
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto created = io::ResultsReader(output).attribute("created");
  const auto rows = io::ResultsReader(output).read(1, 0, 20);

  const auto again = run_cli(run_args(experiment, output));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(digest_of(again), digest_of(made));
  EXPECT_EQ(again.out, made.out);
  const io::ResultsReader reader(output);
  EXPECT_EQ(reader.attribute("created"), created) << "the file was made anew";
  for (const auto& cell : reader.cells()) EXPECT_EQ(cell.done, 20u);
  const auto rows_after = reader.read(1, 0, 20);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    EXPECT_EQ(rows_after[r].series.regret, rows[r].series.regret);
  }
}

TEST(ResultsExisting, AnOutputAReaderHoldsOpenIsRefusedByName) {
  // HDF5 locks a file its first opener holds: a run cannot then write it.
  TempDir dir("held");
  const auto experiment =
      write_file(dir / "exp.toml", ExperimentText{3, "[0.2, 0.9]", "1e4", 20}.toml());
  const auto output = dir / "out.h5";
  ASSERT_EQ(run_cli(run_args(experiment, output)).exit_code, 0);
  const auto before = read_bytes(output);
  const io::ResultsReader reader(output);
  const auto refused = run_cli(run_args(experiment, output));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("cannot open output '" + output.string() + "' for writing"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("holding it open"), std::string::npos) << refused.err;
  EXPECT_EQ(read_bytes(output), before);
}

}  // namespace
}  // namespace pfmab::testing
