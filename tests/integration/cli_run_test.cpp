// The real program end to end: JSON shape, digests across thread counts, the
// table.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_cli.hpp"

namespace pfmab::testing {
namespace {

std::vector<std::string> small_run(const std::string& threads) {
  return {"run",
          "--means",
          shared_data("synthetic_4x9.csv"),
          "--alpha",
          "0.2,0.9",
          "--horizon",
          "1e5",
          "--replications",
          "16",
          "--seed",
          "42",
          "--threads",
          threads,
          "--json"};
}

TEST(CliRun, JsonHasEveryFieldAndOneCellPerAlpha) {
  const auto r = run_cli(small_run("2"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["seed"], 42);
  EXPECT_EQ(j["digest"].get<std::string>().size(), 16u);
  ASSERT_EQ(j["cells"].size(), 2u);
  const auto& c = j["cells"][1];
  EXPECT_EQ(c["algorithm"], "pf-ucb");
  EXPECT_EQ(c["alpha"], 0.9);
  EXPECT_EQ(c["clients"], 4);
  EXPECT_EQ(c["arms"], 9);
  EXPECT_EQ(c["horizon"], 100000);
  EXPECT_EQ(c["replications"], 16);
  const double mean = c["regret"]["mean"];
  EXPECT_GT(mean, 0.0);
  EXPECT_LT(c["regret"]["ci95"][0].get<double>(), mean);
  EXPECT_GT(c["regret"]["ci95"][1].get<double>(), mean);
  EXPECT_GT(c["regret"]["std"].get<double>(), 0.0);
  // comm_count is 2 per client per completed phase: a multiple of 2M = 8 in each replication
  EXPECT_GT(c["comm_count"]["mean"].get<double>(), 0.0);
  EXPECT_GE(c["phases"]["mean"].get<double>(), 1.0);
  EXPECT_GE(c["identified"].get<double>(), 0.0);
  EXPECT_LE(c["identified"].get<double>(), 1.0);
}

TEST(CliRun, DigestIsTheSameAtThreadCountsOneFourTwo) {
  const auto one = run_cli(small_run("1"));
  const auto four = run_cli(small_run("4"));
  const auto two = run_cli(small_run("2"));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out, four.out);
  EXPECT_EQ(one.out, two.out);
}

TEST(CliRun, TableByDefault) {
  const auto r = run_cli({"run", "--means", shared_data("synthetic_4x9.csv"), "--alpha", "0.5",
                          "--horizon", "20000", "--replications", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty());  // stderr is not a terminal: no progress display
  EXPECT_NE(r.out.find("regret"), std::string::npos);
  EXPECT_NE(r.out.find("digest"), std::string::npos);
}

}  // namespace
}  // namespace pfmab::testing
