// MPI runs through the real program under the real launcher (`mpirun
// --oversubscribe -np 2` or 3: oversubscribed, any machine has the ranks):
// the output and digest are those of one process; a job killed mid-run is
// continued by the same command to them; a shard shared among ranks is the
// shard of one process; a setup error is reported once, with status 2, and
// leaves the output as it was.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <dirent.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pfmab/io/results_file.hpp"

#include "run_cli.hpp"
#include "temp_dir.hpp"
#include "time_used.hpp"

namespace pfmab::testing {
namespace {

namespace fs = std::filesystem;

// Cells 50x apart in cost: PF-UCB's aggregated replications take
// microseconds, local UCB draws all 4 x 10,000 rewards (milliseconds). With
// commits of 1,024 rows, the output counts rows of the costly cell from its
// first 256 on (2,000 + 256 of 4,000): a job killed once it does is killed
// with most of its work to do.
std::vector<std::string> experiment(const std::string& seed) {
  return {"--means", shared_data("synthetic_4x9.csv"), "--algorithm", "pf-ucb,local-ucb",
          "--alpha", "0.5", "--horizon", "10000", "--replications", "2000", "--seed", seed,
          "--quiet", "--json"};
}
constexpr std::uint64_t kReplications = 2 * 2000;

std::vector<std::string> run_args(const fs::path& output, std::vector<std::string> extra = {},
                                  const std::string& seed = "11") {
  return run_to(experiment(seed), output, extra);
}

CliResult mpirun(const std::vector<std::string>& args, int ranks = 2) {
  return run_program(PFMAB_MPIEXEC, mpirun_args(args, ranks));
}

// What the file holds: its digest and replications per cell (not what
// they took, which varies from run to run).
nlohmann::json stored(const fs::path& output) {
  const auto summary = run_cli({"summary", output.string(), "--json"});
  EXPECT_EQ(summary.exit_code, 0) << summary.err;
  return nlohmann::json::parse(without_time_used(summary.out));
}

std::uint64_t stored_replications(const fs::path& output) {
  // the summary held while its cells are read (the range of a for does not
  // keep alive the temporary it is a part of)
  const auto summary = stored(output);
  std::uint64_t total = 0;
  for (const auto& cell : summary["cells"]) total += cell["replications"].get<std::uint64_t>();
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

// Stops `pid` (SIGSTOP) and waits until every thread of it has stopped;
// false if it has ended (or is ending) instead.
bool stop_process(pid_t pid) {
  ::kill(pid, SIGSTOP);
  const auto tasks = "/proc/" + std::to_string(pid) + "/task";
  for (;;) {
    bool all = true;
    std::error_code ec;
    for (const auto& task : fs::directory_iterator(tasks, ec)) {
      std::ifstream stat(task.path() / "stat");
      const std::string text{std::istreambuf_iterator<char>(stat), {}};
      const auto after_name = text.rfind(')');
      if (after_name == std::string::npos || after_name + 2 >= text.size()) return false;
      const char state = text[after_name + 2];
      if (state == 'Z' || state == 'X') return false;
      all = all && (state == 'T' || state == 't');
    }
    if (ec) return false;  // gone
    if (all) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Whether `pid` has ended (is no more, or a zombie): it has then closed its
// files.
bool ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text{std::istreambuf_iterator<char>(stat), {}};
  const auto after_name = text.rfind(')');
  return after_name == std::string::npos || after_name + 2 >= text.size() ||
         text[after_name + 2] == 'Z' || text[after_name + 2] == 'X';
}

// The rows an output counts, or nothing while it cannot be read.
std::optional<std::uint64_t> counted(const fs::path& output) {
  try {
    std::uint64_t total = 0;
    const io::ResultsReader reader(output);  // kept: the loop reads its cells
    for (const auto& cell : reader.cells()) total += cell.done;
    return total;
  } catch (...) {
    return std::nullopt;
  }
}

class MpiRun : public ::testing::Test {
 protected:
  // One process on two threads: the reference.
  static void SetUpTestSuite() {
    temp_ = new TempDir("mpi");
    const auto single = run_cli(run_args(*temp_ / "single.h5", {"--threads", "2"}));
    ASSERT_EQ(single.exit_code, 0) << single.err;
    single_digest_ = new std::string(printed_digest(single));
  }
  static void TearDownTestSuite() {
    delete temp_;
    delete single_digest_;
  }

  static TempDir* temp_;
  static std::string* single_digest_;
};

TempDir* MpiRun::temp_ = nullptr;
std::string* MpiRun::single_digest_ = nullptr;

TEST_F(MpiRun, TwoRanksGiveTheDigestOfOneProcess) {
  const auto output = *temp_ / "two-ranks.h5";
  const auto run = mpirun(run_args(output, {"--threads", "1"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(printed_digest(run), *single_digest_) << "the report of rank 0";
  EXPECT_EQ(stored(output)["digest"], *single_digest_) << "the file";
  EXPECT_EQ(stored(output)["cells"], stored(*temp_ / "single.h5")["cells"]) << "its summaries";
  // what every replication took, those rank 1 ran among them: their times
  // travel with their rows to rank 0
  const io::ResultsReader reader(output);  // kept: the loop reads its cells
  for (const auto& cell : reader.cells()) {
    ASSERT_TRUE(cell.used.has_value()) << cell.name;
    EXPECT_EQ(cell.used->replications, cell.done) << cell.name;
    EXPECT_EQ(cell.done, kReplications / 2) << cell.name;
    EXPECT_GT(cell.used->cpu_seconds, 0.0) << cell.name;
  }
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
    const auto guard = std::chrono::steady_clock::now() + std::chrono::minutes(10);
    auto in_time = [&] { return std::chrono::steady_clock::now() < guard; };
    std::vector<pid_t> ranks;
    while ((ranks = children_of(job.pid())).size() < 2 && job.running() && in_time()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_EQ(ranks.size(), 2u);
    // Looked at with both ranks stopped, so that the kill lands where the
    // test looked: once the output counts rows of the costly cell, with most
    // of its work left (by construction, not by the clock).
    std::optional<std::uint64_t> where;
    while (job.running() && in_time()) {
      bool stopped = true;
      for (const auto rank : ranks) stopped = stop_process(rank) && stopped;
      const auto now = counted(output);
      if (stopped && now && *now > kReplications / 2 && *now < kReplications) {
        where = now;
        break;
      }
      for (const auto rank : ranks) ::kill(rank, SIGCONT);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(where) << "the job ended before it could be killed mid-run";
    for (const auto rank : ranks) ::kill(rank, SIGKILL);  // as a node that fails
    const auto killed = job.wait();
    EXPECT_NE(killed.exit_code, 0);
    // the ranks are gone (and have let go of the output) once they are no
    // more, or only zombies: mpirun may end before they do
    for (const auto rank : ranks) {
      while (!ended(rank) && in_time()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(stored_replications(output), *where) << "the file changed after the kill";
  }
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

// An algorithm written in Python (module:Class) is refused under a launcher,
// one rank or two, before anything is written: an interpreter started in a
// rank's place could not join the job (engine/app/program.hpp).
TEST_F(MpiRun, APythonAlgorithmIsRefusedOnceWithStatusTwoAndNothingWritten) {
  for (const int ranks : {1, 2}) {
    const auto output = *temp_ / ("python-" + std::to_string(ranks) + ".h5");
    const auto run = mpirun(run_to({"--means", shared_data("synthetic_4x9.csv"), "--algorithm",
                                    "some_module:SomePolicy", "--replications", "4", "--quiet"},
                                   output, {"--threads", "1"}),
                            ranks);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    const auto first = run.err.find("pfmab: error");
    EXPECT_EQ(run.err.find("pfmab: error", first + 1), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("algorithm 'some_module:SomePolicy' is a Python class, which does "
                           "not run on MPI ranks: run it as a job array"),
              std::string::npos)
        << run.err;
    EXPECT_FALSE(fs::exists(output));
  }
}

}  // namespace
}  // namespace pfmab::testing
