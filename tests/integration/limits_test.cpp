// The real program at the edges of what it accepts (issue 13): numbers at
// and beyond their declared ranges (docs/limits.md), sweeps and thread counts
// beyond what the machine holds, phase lengths that overflow 64 bits, and
// stop requests landing inside replications of any length.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/model/instance.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/model/mixed_model.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace pfmab::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string synthetic = shared_data("synthetic_4x9.csv");

// One line on stderr, exit 2, nothing on stdout.
void expect_refused(const CliResult& r, const std::vector<std::string>& words) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const auto& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << w << "\n" << r.err;
}

TEST(Limits, ThreadsBeyondTheMachineAreRefusedAtOnceAndNothingIsWritten) {
  TempDir dir("threads");
  const auto output = dir / "out.h5";
  auto process = spawn_cli(run_to({"--means", synthetic, "--alpha", "0.5", "-T", "100", "-R", "1"},
                                  output, {"--threads", "2147483648"}));
  const auto r = process->wait();
  // once: 50 s and 16.8 GB, then std::bad_alloc and an empty output; the
  // processor time, not the wall time, which the machine's load sets
  EXPECT_LT(process->cpu_seconds(), 5.0);
  expect_refused(r, {"2147483648 threads", "at most", "per core"});
  EXPECT_FALSE(fs::exists(output));
}

TEST(Limits, ASweepOfMoreCellsThanAcceptedIsRefusedBeforeItIsBuilt) {
  TempDir dir("cells");
  std::string alphas, horizons;
  for (int i = 0; i < 1000; ++i) {
    alphas += (i ? "," : "") + std::to_string(i / 1000.0);
    horizons += (i ? "," : "") + std::to_string(i + 1);
  }
  const auto file = dir / "sweep.toml";
  std::ofstream(file) << "alpha = [" << alphas << "]\nhorizon = [" << horizons
                      << "]\n[instance]\nmeans = \"" << synthetic << "\"\n";
  // once: 10^6 cells took 23 s and 4.7 GB to validate (the processor time
  // is checked, not the wall time, which the machine's load sets)
  auto process = spawn_cli({"validate", file.string()});
  const auto r = process->wait();
  EXPECT_LT(process->cpu_seconds(), 5.0);
  expect_refused(r, {file.string(), "1000000 cells", "at most 100000"});
}

TEST(Limits, CellsTimesReplicationsAbove2To62AreRefused) {
  const auto r = run_cli({"validate", "--means", synthetic, "--alpha", "0,0.5", "-R", "3e18"});
  expect_refused(r, {"2 cells x 3000000000000000000 replications", "2^62"});
}

TEST(Limits, ClientsTimesHorizonAbove2To62AreRefusedAndBelowAccepted) {
  // 8 clients at T = 2^62: exploration_pulls once wrapped around 2^64
  const std::string eight = "1,0;0,1;1,0;0,1;1,1;0,0;1,0;0,1";
  expect_refused(
      run_cli({"validate", "--means-inline", eight, "--alpha", "0.5", "-T", "4611686018427387904"}),
      {"M T = 8 clients x 4611686018427387904 slots", "above 2^62"});
  const auto r = run_cli({"validate", "--means-inline", "1,0", "--alpha", "0.5", "-T",
                          "4611686018427387904"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Limits, IntegersAbove2To53AreReadExactly) {
  // once: "5e-324 is not a whole number", read through an empty optional
  const auto r = run_cli(
      {"validate", "--means", synthetic, "--alpha", "0.5", "--replications", "9007199254740993"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("x 9007199254740993 replications"), std::string::npos) << r.out;
}

// The regret of every client exploring for `slots` slots, a multiple of K:
// round robin, slots / K times the sum of its gaps; blocked (the authors'
// order), all of them on arm 0.
double exploration_regret(double alpha, std::uint64_t slots, bool blocked) {
  const model::Instance instance(model::read_means_csv(synthetic), {});
  const model::MixedModel mixed(instance, alpha);
  double regret = 0.0;
  for (std::size_t m = 0; m < instance.clients(); ++m) {
    if (blocked) {
      regret += static_cast<double>(slots) * mixed.gap(m, 0);
      continue;
    }
    for (std::size_t k = 0; k < instance.arms(); ++k) {
      regret += static_cast<double>(slots / instance.arms()) * mixed.gap(m, k);
    }
  }
  return regret;
}

// f(p) = 2^62: the first phase's lengths, K ceil((1 - alpha) f) + K ceil(M
// alpha f), once wrapped around 2^64 (an instance that never ended, another
// with a few slots of regret and no exchanges). Saturated, the horizon cuts
// the phase: every client explores to the end, with no exchange.
class LongestSchedule : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(LongestSchedule, CutsTheFirstPhaseAtTheHorizonExactly) {
  constexpr std::uint64_t horizon = 99'999;  // 11,111 rounds of the 9 arms
  std::vector<std::string> args{"run",        "--means",  synthetic, "--alpha",
                                "0.5",        "-T",       "99999",   "-R",
                                "2",          "--schedule", "constant", "--lambda",
                                "4611686018427387904",     "--json",  "--quiet"};
  args.insert(args.end(), GetParam().begin(), GetParam().end());
  auto process = spawn_cli(args);
  while (process->running() && process->elapsed() < 60s) std::this_thread::sleep_for(10ms);
  ASSERT_FALSE(process->running()) << "did not end within 60 s";
  const auto r = process->wait();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto cell = nlohmann::json::parse(r.out)["cells"][0];
  const bool blocked = std::find(args.begin(), args.end(), "authors-code") != args.end();
  const double expected = exploration_regret(0.5, horizon, blocked);
  EXPECT_NEAR(cell["regret"]["mean"].get<double>(), expected, 1e-9 * expected);
  EXPECT_EQ(cell["comm_count"]["mean"].get<double>(), 0.0);
  EXPECT_EQ(cell["phases"]["mean"].get<double>(), 1.0);
}

INSTANTIATE_TEST_SUITE_P(
    Presets, LongestSchedule,
    ::testing::Values(std::vector<std::string>{},
                      std::vector<std::string>{"--mode", "per-pull"},
                      // the authors' rule draws a cut phase for its waiting:
                      // per pull, once 2^62 draws per arm
                      std::vector<std::string>{"--preset", "authors-code", "--mode", "per-pull"},
                      std::vector<std::string>{"--preset", "authors-code"}));

TEST(Limits, OneReplicationHasNoConfidenceIntervalAndTheTablePrintsNoNan) {
  const auto r = run_cli({"run", "--means", synthetic, "--alpha", "0.5", "-T", "1e4", "-R", "1",
                          "--preset", "authors-code", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("n/a"), std::string::npos) << r.out;
}

// Every algorithm runs to the end on games at the edges of the accepted
// means and sigma: an estimate past the means' range (pf-alloc planned
// with a validated instance of its estimates, and aborted mid-run at
// "mean = 1000000000.46 is outside"), noise a billion times the gaps, gaps
// whose squares underflow.
struct ExtremeGame {
  std::string name;
  std::vector<std::string> flags;
};

void PrintTo(const ExtremeGame& g, std::ostream* os) { *os << g.name; }

class EveryAlgorithmOn : public ::testing::TestWithParam<ExtremeGame> {};

TEST_P(EveryAlgorithmOn, AnExtremeGameRunsToTheEnd) {
  for (const auto& entry : algorithms::registered_algorithms()) {
    SCOPED_TRACE(std::string(entry.name));
    TempDir dir("extreme");
    std::vector<std::string> args{"--algorithm", std::string(entry.name), "--alpha", "0.5", "-T",
                                  "1000", "-R", "2"};
    args.insert(args.end(), GetParam().flags.begin(), GetParam().flags.end());
    const auto r = run_cli(run_to(args, dir / "out.h5", {"--json"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["cells"][0]["replications"], 2) << r.out;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Limits, EveryAlgorithmOn,
    ::testing::Values(ExtremeGame{"means_at_the_range", {"--means-inline", "1e9,0;0,1e9"}},
                      ExtremeGame{"sigma_a_billion_times_the_gaps",
                                  {"--means-inline", "0.9,0.1;0.2,0.8", "--sigma", "1e9"}},
                      ExtremeGame{"gaps_whose_squares_underflow",
                                  {"--means-inline", "9e-170,1e-170;2e-170,8e-170"}}),
    [](const ::testing::TestParamInfo<ExtremeGame>& info) { return info.param.name; });

// A stop request lands inside replications that would run for hours: the
// program ends within about a second, keeps the replications finished
// before (here cell 0's two, at T = 100), discards the interrupted ones and
// says how to continue.
class StopInsideReplications : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(StopInsideReplications, EndsWithinASecondKeepingTheFinishedOnes) {
  for (const int sig : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(sig == SIGINT ? "SIGINT" : "SIGTERM");
    TempDir dir("stop");
    const auto output = dir / "out.h5";
    // equal means: nothing is ever eliminated, every phase explores
    const auto file = dir / "exp.toml";
    std::ofstream(file) << "alpha = 0.5\nhorizon = [100, 1000000000000]\nreplications = 2\n"
                           "[instance]\nmeans = [[0.5, 0.5], [0.5, 0.5]]\n";
    std::vector<std::string> experiment{file.string()};
    experiment.insert(experiment.end(), GetParam().begin(), GetParam().end());
    auto process = spawn_cli(run_to(experiment, output, {"--threads", "2"}));
    // well into the long cell (the short one takes microseconds): a second
    // and a half of processor time, however loaded the machine
    while (process->running() && process->cpu_seconds() < 1.5) std::this_thread::sleep_for(5ms);
    ASSERT_TRUE(process->running()) << process->wait().err;
    const double before = process->cpu_seconds();
    process->signal(sig);
    const auto signalled = process->elapsed();
    while (process->running() && process->elapsed() - signalled < 300s) {  // a hang's guard
      std::this_thread::sleep_for(5ms);
    }
    const auto r = process->wait();
    // the work done after the signal, not the wall time (which the load sets)
    EXPECT_LT(process->cpu_seconds() - before, 2.0) << "about a second of each of the two threads";
    EXPECT_EQ(r.exit_code, 130) << r.err;
    EXPECT_NE(r.err.find("interrupted: 2 of 4 replications are in"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("run the same command to continue"), std::string::npos) << r.err;
    const auto summary = run_cli({"summary", output.string(), "--json"});
    ASSERT_EQ(summary.exit_code, 0) << summary.err;
    const auto cells = nlohmann::json::parse(summary.out)["cells"];
    EXPECT_EQ(cells[0]["replications"], 2);
    EXPECT_EQ(cells[1]["replications"], 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Algorithms, StopInsideReplications,
    ::testing::Values(std::vector<std::string>{"--mode", "per-pull"},
                      std::vector<std::string>{"--preset", "authors-code", "--mode", "per-pull"},
                      std::vector<std::string>{"--algorithm", "local-ucb"},
                      std::vector<std::string>{"--algorithm", "centralized-ucb"},
                      std::vector<std::string>{"--algorithm", "local-thompson"},
                      std::vector<std::string>{"--algorithm", "centralized-thompson"},
                      // aggregated: phases of 4 slots, 2.5 10^11 of them
                      std::vector<std::string>{"--schedule", "constant", "--lambda", "1e-9"}));

}  // namespace
}  // namespace pfmab::testing
