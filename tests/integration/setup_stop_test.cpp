// A stop request (SIGINT, SIGTERM) during a run's or the bounds' set-up:
// the C* solves of a game at the solver's limit are interrupted, the
// program prints one line and exits with 130, and leaves no file, neither
// an output nor a temporary one (docs/command-line.md). The test waits for
// the program to have used a second of processor time, so that it is well
// into the solve whatever the machine's load; its only clock is a cap that
// a hung program would exceed (the solves alone take about 9 s).
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace pfmab::testing {
namespace {

using namespace std::chrono_literals;

// 256 clients x 256 arms, each client's best arm its own (the arms' global
// means are all equal): 256 distinct best arms, the most the C* solver
// takes (theory::kMaxDistinctBestArms), about 1 s of processor time a
// solve, and the runs below solve nine alphas.
std::string slow_game() {
  std::string csv;
  for (int m = 0; m < 256; ++m) {
    for (int k = 0; k < 256; ++k) {
      csv += fmt::format("{}{:.6f}", k ? "," : "", 0.1 + 0.8 * ((k * 37 + m * 101) % 256) / 256.0);
    }
    csv += '\n';
  }
  return csv;
}

struct SetUpStop {
  std::string name;
  std::vector<std::string> args;  // {means} and {out} stand for the files
  int signal;
  std::string said;  // the one line
};

void PrintTo(const SetUpStop& c, std::ostream* os) { *os << c.name; }

class StopDuringSetUp : public ::testing::TestWithParam<SetUpStop> {};

TEST_P(StopDuringSetUp, EndsTheSolveWithOneLineAndExitStatus130LeavingNoFile) {
  const auto& c = GetParam();
  TempDir dir("setup-stop");
  const auto means = dir / "means.csv";
  std::ofstream(means) << slow_game();
  std::vector<std::string> args;
  for (const auto& a : c.args) {
    args.push_back(a == "{means}" ? means.string() : a == "{out}" ? (dir / "out.h5").string() : a);
  }
  auto process = spawn_cli(args);
  while (process->running() && process->cpu_seconds() < 1.0) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(process->running()) << "the solve ended early: " << process->wait().err;
  process->signal(c.signal);
  while (process->running() && process->elapsed() < 120s) std::this_thread::sleep_for(10ms);
  ASSERT_FALSE(process->running()) << "the stop was not honoured";
  const auto r = process->wait();
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_EQ(r.err, c.said + "\n");
  EXPECT_EQ(r.out, "");
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(dir.dir())) {
    left.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(left, std::vector<std::string>{"means.csv"}) << "no output, no temporary file";
}

INSTANTIATE_TEST_SUITE_P(
    RunAndBounds, StopDuringSetUp,
    ::testing::Values(SetUpStop{"run_to_an_output_sigterm",
                                {"run", "--means", "{means}", "--alpha",
                                 "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9", "-R", "2", "-o", "{out}",
                                 "-q"},
                                SIGTERM,
                                "pfmab: interrupted while setting up the run: nothing written"},
                      SetUpStop{"run_without_output_sigint",
                                {"run", "--means", "{means}", "--alpha",
                                 "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9", "-R", "2", "-q"},
                                SIGINT,
                                "pfmab: interrupted while setting up the run: nothing written"},
                      SetUpStop{"bounds_sigint",
                                {"bounds", "--means", "{means}", "--alpha",
                                 "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9"},
                                SIGINT,
                                "pfmab: interrupted"}),
    [](const ::testing::TestParamInfo<SetUpStop>& info) { return info.param.name; });

}  // namespace
}  // namespace pfmab::testing
