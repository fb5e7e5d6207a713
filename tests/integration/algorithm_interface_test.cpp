// The algorithm interface through the real program: explore-then-commit, the
// one-file example of docs/algorithms.md ("How to add an algorithm"), run by
// `pfmab run` in both modes, and an option given to an algorithm that does
// not have it refused by the engine's one check.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_cli.hpp"

namespace pfmab::testing {
namespace {

std::vector<std::string> etc_run(const std::string& mode, const std::string& threads) {
  return {"run",   "--means", shared_data("synthetic_4x9.csv"), "--algorithm",
          "explore-then-commit", "--alpha", "0,0.5,1", "--horizon", "1e5",
          "--replications", "40", "--pulls-per-arm", "50", "--mode", mode,
          "--threads", threads, "--json"};
}

// Each mode's digest is the same on 1 and 2 threads; explore-then-commit's
// cells say what it did: one phase, 2 exchanges per client, K n pulls per
// client, its rewards drawn as the mode says (it reads them through sums).
TEST(AlgorithmInterface, ExploreThenCommitRunsInBothModesWithOneDigestOnAnyThreadCount) {
  for (const std::string mode : {"aggregated", "per-pull"}) {
    SCOPED_TRACE(mode);
    const auto one = run_cli(etc_run(mode, "1"));
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const auto two = run_cli(etc_run(mode, "2"));
    ASSERT_EQ(two.exit_code, 0) << two.err;
    EXPECT_EQ(printed_digest(one), printed_digest(two));
    const auto cells = nlohmann::json::parse(one.out)["cells"];
    ASSERT_EQ(cells.size(), 3u);  // one per alpha
    for (const auto& cell : cells) {
      EXPECT_EQ(cell["algorithm"], "explore-then-commit");
      EXPECT_EQ(cell["mode"], mode);
      EXPECT_EQ(cell["phases"]["mean"], 1.0);
      EXPECT_EQ(cell["comm_count"]["mean"], 2.0 * 4);  // M = 4 clients
    }
  }
}

// Noiseless rewards (sigma 0) make the estimates exact, so the regret can be
// followed by hand. M = 2, K = 2, alpha = 0.5: local [1, 0] and [0, 0.75],
// global [0.5, 0.375], mixed [0.75, 0.1875] and [0.25, 0.5625]: gaps 0.5625
// (client 0, arm 1) and 0.3125 (client 1, arm 0). Each client pulls each arm
// 3 times, so the phase costs 3 (0.5625 + 0.3125) = 2.625, plus 2 exchanges
// per client at C = 1; then both commit to their mixed-optimal arm.
TEST(AlgorithmInterface, ExploreThenCommitCommitsToTheBestMixedEstimate) {
  const auto r = run_cli({"run", "--means-inline", "1,0;0,0.75", "--sigma", "0", "--alpha",
                          "0.5", "--horizon", "1000", "--replications", "2", "--algorithm",
                          "explore-then-commit", "--pulls-per-arm", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto cell = nlohmann::json::parse(r.out)["cells"][0];
  EXPECT_EQ(cell["regret"]["mean"], 2.625 + 4.0);
  EXPECT_EQ(cell["identified"], 1.0);
}

TEST(AlgorithmInterface, AnOptionNoCellHasIsRefusedByTheSameCheck) {
  const std::vector<std::string> base{"run", "--means-inline", "1,0;0,0.75", "--alpha", "0.5",
                                      "--horizon", "100", "--replications", "1"};
  const auto given = [&](std::vector<std::string> extra) {
    auto args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  };
  const auto etc_option = given({"--algorithm", "pf-ucb", "--pulls-per-arm", "5"});
  EXPECT_EQ(etc_option.exit_code, 2);
  EXPECT_NE(etc_option.err.find("pulls_per_arm '5' has no effect on any cell (pf-ucb: it is "
                                "explore-then-commit's option)"),
            std::string::npos)
      << etc_option.err;
  const auto pf_option = given({"--algorithm", "explore-then-commit", "--lengths", "large-m"});
  EXPECT_EQ(pf_option.exit_code, 2);
  EXPECT_NE(pf_option.err.find("lengths 'large-m' has no effect on any cell "
                               "(explore-then-commit: it is PF-UCB's option)"),
            std::string::npos)
      << pf_option.err;
  // its default, given or not, is no option at all
  EXPECT_EQ(given({"--algorithm", "pf-ucb", "--pulls-per-arm", "100"}).exit_code, 0);
}

}  // namespace
}  // namespace pfmab::testing
