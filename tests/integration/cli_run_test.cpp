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

// The 2x2 of the bounds unit tests (alpha = 0.5, Gaussian): Theorem 1's
// constant is 14 (tests/unit/theory/bounds_test.cpp has the arithmetic), and
// Theorem 2 with f(p) = 100 at T = 1000, C = 1 is 4858.50.
const std::vector<std::string> kBounds2x2{
    "--means-inline", "0.9,0.5;0.3,0.6", "--alpha",  "0.5", "--horizon",   "1000",
    "--schedule",     "constant",        "--lambda", "100", "--comm-cost", "1"};

TEST(CliBounds, TableShowsEachCellsConstantsAndBounds) {
  std::vector<std::string> args{"bounds"};
  args.insert(args.end(), kBounds2x2.begin(), kBounds2x2.end());
  const auto r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find("Th.1 const"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" 14.00 "), std::string::npos) << r.out;  // Theorem 1 constant
  EXPECT_NE(r.out.find(" 96.7 "), std::string::npos) << r.out;  // 14 log 1000 = 96.709
  EXPECT_NE(r.out.find(" 4858.5"), std::string::npos) << r.out;  // Theorem 2
}

TEST(CliBounds, JsonAndTheRunReportAgree) {
  std::vector<std::string> args{"bounds", "--json"};
  args.insert(args.end(), kBounds2x2.begin(), kBounds2x2.end());
  const auto r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto b = nlohmann::json::parse(r.out)["cells"][0]["bounds"];
  EXPECT_NEAR(b["theorem1_constant"].get<double>(), 14.0, 1e-9);
  EXPECT_NEAR(b["theorem2_upper"].get<double>(), 4858.5009196839, 1e-6);

  std::vector<std::string> run{"run", "--replications", "4", "--json"};
  run.insert(run.end(), kBounds2x2.begin(), kBounds2x2.end());
  const auto ran = run_cli(run);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const auto cell = nlohmann::json::parse(ran.out)["cells"][0];
  EXPECT_EQ(cell["bounds"], b);
  EXPECT_EQ(cell["mode"], "aggregated");  // the default
}

}  // namespace
}  // namespace pfmab::testing
