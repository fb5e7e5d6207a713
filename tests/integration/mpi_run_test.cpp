// MPI runs through the real program under the real launcher (`mpirun
// --oversubscribe -np 2` or 3: oversubscribed, any machine has the ranks):
// the output and digest are those of one process; a job killed mid-run is
// continued by the same command to them; a shard shared among ranks is the
// shard of one process; a setup error is reported once, with status 2, and
// leaves the output as it was.
#include <dirent.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace pfmab::testing {
namespace {

namespace fs = std::filesystem;

// Cells 100x apart in cost: PF-UCB's aggregated replications take
// microseconds, local UCB draws all 4 x 100,000 rewards (milliseconds).
std::vector<std::string> experiment(const std::string& seed) {
  return {"--means", shared_data("synthetic_4x9.csv"), "--algorithm", "pf-ucb,local-ucb",
          "--alpha", "0.5", "--horizon", "100000", "--replications", "600", "--seed", seed,
          "--quiet", "--json"};
}

std::vector<std::string> run_args(const fs::path& output, std::vector<std::string> extra = {},
                                  const std::string& seed = "11") {
  return run_to(experiment(seed), output, extra);
}

CliResult mpirun(const std::vector<std::string>& args, int ranks = 2) {
  return run_program(PFMAB_MPIEXEC, mpirun_args(args, ranks));
}

// What the file holds: its digest and replications per cell.
nlohmann::json stored(const fs::path& output) {
  const auto summary = run_cli({"summary", output.string(), "--json"});
  EXPECT_EQ(summary.exit_code, 0) << summary.err;
  return nlohmann::json::parse(summary.out);
}

std::uint64_t stored_replications(const fs::path& output) {
  std::uint64_t total = 0;
  for (const auto& cell : stored(output)["cells"]) total += cell["replications"].get<std::uint64_t>();
  return total;
}

// The processes whose parent is `parent` (the ranks mpirun started).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  DIR* proc = ::opendir("/proc");
  while (const auto* entry = ::readdir(proc)) {
    std::ifstream stat(std::string("/proc/") + entry->d_name + "/stat");
    std::string pid, name, state;
    pid_t ppid = 0;
    // pid (comm) state ppid: comm is "pfmab" here, without spaces
    if (stat >> pid >> name >> state >> ppid && ppid == parent) out.push_back(std::stoi(pid));
  }
  ::closedir(proc);
  return out;
}

class MpiRun : public ::testing::Test {
 protected:
  // One process on two threads: the reference, and how long it takes.
  static void SetUpTestSuite() {
    temp_ = new TempDir("mpi");
    const auto start = std::chrono::steady_clock::now();
    const auto single = run_cli(run_args(*temp_ / "single.h5", {"--threads", "2"}));
    single_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(single.exit_code, 0) << single.err;
    single_digest_ = new std::string(printed_digest(single));
  }
  static void TearDownTestSuite() {
    delete temp_;
    delete single_digest_;
  }

  static TempDir* temp_;
  static std::string* single_digest_;
  static double single_seconds_;
};

TempDir* MpiRun::temp_ = nullptr;
std::string* MpiRun::single_digest_ = nullptr;
double MpiRun::single_seconds_ = 0;

TEST_F(MpiRun, TwoRanksGiveTheDigestOfOneProcess) {
  const auto output = *temp_ / "two-ranks.h5";
  const auto run = mpirun(run_args(output, {"--threads", "1"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(printed_digest(run), *single_digest_) << "the report of rank 0";
  EXPECT_EQ(stored(output)["digest"], *single_digest_) << "the file";
  EXPECT_EQ(stored(output)["cells"], stored(*temp_ / "single.h5")["cells"]) << "its summaries";
}

TEST_F(MpiRun, ThreeRanksGiveTheDigestOfOneProcess) {
  // more ranks than cores, each asking for blocks the others are running
  const auto output = *temp_ / "three-ranks.h5";
  const auto run = mpirun(run_args(output, {"--threads", "1"}), 3);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(printed_digest(run), *single_digest_);
  EXPECT_EQ(stored(output)["digest"], *single_digest_);
}

TEST_F(MpiRun, AKilledJobIsContinuedByTheSameCommandToTheDigestOfOneProcess) {
  const auto output = *temp_ / "killed.h5";
  const auto args = mpirun_args(run_args(output, {"--threads", "1"}));
  {
    Spawned job(PFMAB_MPIEXEC, args);
    // MPI starts in well under a second; the run takes about as long as the
    // one-process reference: kill the ranks half-way through it.
    std::this_thread::sleep_for(std::chrono::duration<double>(0.5 + 0.5 * single_seconds_));
    ASSERT_TRUE(job.running()) << "the job ended before the kill: make the experiment longer";
    const auto ranks = children_of(job.pid());
    ASSERT_EQ(ranks.size(), 2u);
    for (const auto rank : ranks) ::kill(rank, SIGKILL);  // as a node that fails
    const auto killed = job.wait();
    EXPECT_NE(killed.exit_code, 0);
  }
  EXPECT_LT(stored_replications(output), 1200u) << "the kill landed after the end";
  const auto again = run_program(PFMAB_MPIEXEC, args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(printed_digest(again), *single_digest_);
  EXPECT_EQ(stored(output)["digest"], *single_digest_);
}

TEST_F(MpiRun, AShardSharedAmongRanksIsTheShardOfOneProcess) {
  const auto alone = run_cli(run_args(*temp_ / "shard-alone.h5", {"--shard", "1/3"}));
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  const auto shared = mpirun(run_args(*temp_ / "shard-mpi.h5", {"--shard", "1/3", "--threads", "2"}));
  ASSERT_EQ(shared.exit_code, 0) << shared.err;
  EXPECT_EQ(printed_digest(shared), printed_digest(alone));
}

TEST_F(MpiRun, ASetupErrorIsReportedOnceWithStatusTwoAndTheOutputUntouched) {
  std::ifstream in(*temp_ / "single.h5", std::ios::binary);
  const std::string before{std::istreambuf_iterator<char>(in), {}};
  // another experiment than the file's
  const auto run = mpirun(run_args(*temp_ / "single.h5", {}, "12"));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  std::size_t errors = 0;
  for (auto at = run.err.find("pfmab: error"); at != std::string::npos;
       at = run.err.find("pfmab: error", at + 1))
    ++errors;
  EXPECT_EQ(errors, 1u) << run.err;
  EXPECT_NE(run.err.find("different experiment"), std::string::npos) << run.err;
  std::ifstream after_in(*temp_ / "single.h5", std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(after_in), {}), before);
}

}  // namespace
}  // namespace pfmab::testing
