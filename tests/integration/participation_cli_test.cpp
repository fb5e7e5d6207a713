// Partial participation through the real program: a participation
// probability so small that the old redraw loop spun forever, and the
// labelled participants-only aggregation.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_cli.hpp"

namespace pfmab::testing {
namespace {

std::vector<std::string> small_run(const std::vector<std::string>& participation) {
  std::vector<std::string> args{"run",
                                "--means",
                                shared_data("synthetic_4x9.csv"),
                                "--alpha",
                                "0.5",
                                "--horizon",
                                "1e5",
                                "--replications",
                                "4",
                                "--json"};
  args.insert(args.end(), participation.begin(), participation.end());
  return args;
}

// Whether `program` ends before it has used `limit` seconds of processor
// time (a loop that spins forever uses it up, whatever the machine's load;
// wall time only guards against a hang); a program still running is killed
// when `program` goes out of scope.
bool ends_within_cpu(Spawned& program, double limit) {
  const auto guard = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  while (program.running()) {
    if (program.cpu_seconds() > limit || std::chrono::steady_clock::now() > guard) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// q = 1e-300 passes validation; the participants are now drawn conditioned
// on someone taking part, in at most M draws: a phase has exactly one
// participant (two would need a second success, probability ~M q), so each
// completed phase costs 2 exchanges.
TEST(CliParticipation, TinyProbabilityFinishesWithOneParticipantPerPhase) {
  auto program = spawn_cli(small_run({"--participation", "1e-300"}));
  // it takes a hundredth of a CPU-second
  ASSERT_TRUE(ends_within_cpu(*program, 30.0)) << "still running after 30 CPU-seconds";
  const auto r = program->wait();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto cell = nlohmann::json::parse(r.out)["cells"][0];
  EXPECT_EQ(cell["keys"]["participation_probability"], 1e-300);
  EXPECT_EQ(cell["keys"]["participation_aggregate"], "latest");
  const double exchanges = cell["comm_count"]["mean"], phases = cell["phases"]["mean"];
  // the horizon may cut each replication's last phase before the exchanges
  EXPECT_LE(exchanges, 2.0 * phases);
  EXPECT_GE(exchanges, 2.0 * (phases - 1.0));
}

TEST(CliParticipation, AggregateFlagSelectsTheParticipantsMeansAndIsRefusedIfUnknown) {
  const auto r = run_cli(small_run({"--participants", "2", "--aggregate", "participants"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto keys = nlohmann::json::parse(r.out)["cells"][0]["keys"];
  EXPECT_EQ(keys["participation_clients"], 2);
  EXPECT_EQ(keys["participation_aggregate"], "participants");
  // with every client the aggregation is moot: no cell has a use for it
  const auto full = run_cli(small_run({"--aggregate", "participants"}));
  EXPECT_EQ(full.exit_code, 2);
  EXPECT_NE(full.err.find("participation_aggregate 'participants' has no effect on any cell "
                          "(pf-ucb: every client takes part in every phase)"),
            std::string::npos)
      << full.err;
  const auto bad = run_cli(small_run({"--participants", "2", "--aggregate", "stale"}));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown aggregation 'stale'"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace pfmab::testing
