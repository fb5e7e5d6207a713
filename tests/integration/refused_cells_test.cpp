// Sweeps with refused combinations (issue 38, item 6) and lists of means
// files (item 7), through the real program: a sweep one of whose cells is
// refused (pf-alloc plans with a convex KL, which exponential rewards do not
// have) is refused whole, naming that cell; with --skip-refused or
// skip_refused = true the others run, with the digest of the sweep that
// never asked for the refused cell (they keep their positions), and the
// refused cell is recorded with its reason in the table, the JSON, the
// output (summary and merge read it back) and validate's notes.
// `--means a.csv,b.csv` sweeps both games, as the file's list does.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace pfmab::testing {
namespace {

// pf-alloc on the enhancement game (every mean positive, as exponential
// rewards need), three families of which it refuses the last.
std::vector<std::string> sweep(const std::string& rewards) {
  return {"--means",     shared_data("enhancement_4x9.csv"),
          "--rewards",   rewards,
          "--algorithm", "pf-alloc",
          "--alpha",     "0.5",
          "-T",          "2000",
          "-R",          "4",
          "--seed",      "9",
          "--quiet"};
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

const char* const kWhy = "pf-alloc: it plans with the rewards' KL divergence";

TEST(RefusedCells, ARefusedCellRefusesTheSweepNamingIt) {
  auto args = with({"run"}, sweep("bernoulli,poisson,exponential"));
  const auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("1 of 3 cells is refused: (rewards exponential) pf-alloc"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("skip_refused = true (--skip-refused)"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
}

TEST(RefusedCells, SkippedTheOthersRunAsIfNeverAskedAndTheRefusedOneIsRecorded) {
  TempDir dir("refused");
  const auto out = dir.dir() / "skipped.h5";
  const auto skipped = run_cli(
      with(run_to(sweep("bernoulli,poisson,exponential"), out), {"--skip-refused", "--json"}));
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  const auto alone = run_cli(with({"run"}, with(sweep("bernoulli,poisson"), {"--json"})));
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(printed_digest(skipped), printed_digest(alone));

  const auto report = nlohmann::json::parse(skipped.out);
  EXPECT_EQ(report["cells"].size(), 2u);
  ASSERT_EQ(report["refused"].size(), 1u);
  EXPECT_EQ(report["refused"][0]["name"], "rewards exponential");
  EXPECT_EQ(report["refused"][0]["cell"]["rewards"], "exponential");
  EXPECT_NE(report["refused"][0]["why"].template get<std::string>().find(kWhy), std::string::npos);
  EXPECT_FALSE(nlohmann::json::parse(alone.out).contains("refused"));

  // the output records it: summary reads it back, in its table and JSON
  const auto summary = run_cli(std::vector<std::string>{"summary", out.string(), "--json"});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_EQ(nlohmann::json::parse(summary.out)["refused"], report["refused"]);
  const auto table = run_cli(std::vector<std::string>{"summary", out.string()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("refused, not run (skip_refused): 1 cell\n  (rewards exponential) " +
                           std::string(kWhy)),
            std::string::npos)
      << table.out;
}

TEST(RefusedCells, ShardsOfASweepWithASkippedCellMergeToTheWholeRun) {
  TempDir dir("refused");
  const auto whole = dir.dir() / "whole.h5";
  const auto args = with(sweep("bernoulli,exponential,poisson"), {"--skip-refused"});
  ASSERT_EQ(run_cli(run_to(args, whole)).exit_code, 0);
  std::vector<std::string> merge{"merge", "--json", "-o", (dir.dir() / "merged.h5").string()};
  for (const auto* shard : {"0/2", "1/2"}) {
    const auto part = dir.dir() / (std::string("part") + shard[0] + ".h5");
    const auto r = run_cli(run_to(args, part, {"--shard", shard}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    merge.push_back(part.string());
  }
  const auto merged = run_cli(merge);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  const auto single = run_cli(std::vector<std::string>{"summary", whole.string(), "--json"});
  const auto a = nlohmann::json::parse(merged.out), b = nlohmann::json::parse(single.out);
  EXPECT_EQ(a["digest"], b["digest"]);
  ASSERT_EQ(a["refused"].size(), 1u);
  EXPECT_EQ(a["refused"], b["refused"]);
}

TEST(RefusedCells, TheFileSaysSoAndValidateListsThem) {
  TempDir dir("refused");
  const auto file = dir.dir() / "exp.toml";
  std::ofstream(file) << "skip_refused = true\nhorizon = 2000\nreplications = 2\nalpha = 0.5\n"
                         "[instance]\nmeans = \""
                      << shared_data("enhancement_4x9.csv")
                      << "\"\nrewards = [\"exponential\", \"bernoulli\", \"student-t\"]\n"
                         "[algorithm]\nname = \"pf-alloc\"\n";
  const auto r = run_cli(std::vector<std::string>{"validate", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("valid: 1 cell x 2 replications"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("note: 2 of 3 cells refused, skipped (skip_refused):\n    (rewards "
                       "exponential) " +
                       std::string(kWhy)),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n    (rewards student-t) "), std::string::npos) << r.out;
  // run says the same on stderr, and runs the one cell left
  const auto run = run_cli(std::vector<std::string>{"run", file.string(), "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("pfmab: note: 2 of 3 cells refused"), std::string::npos) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["refused"].size(), 2u);
}

TEST(MeansList, ACommaListOfFilesSweepsTheGamesAsTheFilesList) {
  TempDir dir("refused");
  const auto a = shared_data("synthetic_4x9.csv"), b = shared_data("enhancement_4x9.csv");
  const std::vector<std::string> rest{"--alpha", "0.5", "-T",      "1e4",
                                      "-R",      "3",   "--quiet", "--json"};
  const auto flags = run_cli(with({"run", "--means", a + "," + b}, rest));
  ASSERT_EQ(flags.exit_code, 0) << flags.err;
  const auto file = dir.dir() / "exp.toml";
  std::ofstream(file) << "[instance]\nmeans = [\"" << a << "\", \"" << b << "\"]\n";
  const auto listed = run_cli(with({"run", file.string()}, rest));
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(nlohmann::json::parse(flags.out)["cells"].size(), 2u);
  EXPECT_EQ(printed_digest(flags), printed_digest(listed));
  // inline matrices are separated by '|'
  const auto inline_list = run_cli(with({"run", "--means-inline", "0,1;1,0|0.5,0;0,0.5"}, rest));
  ASSERT_EQ(inline_list.exit_code, 0) << inline_list.err;
  EXPECT_EQ(nlohmann::json::parse(inline_list.out)["cells"].size(), 2u);
}

TEST(MeansList, AFileWhoseNameHasACommaIsThatFileAndAnEmptyEntryIsNamed) {
  TempDir dir("refused");
  const auto odd = dir.dir() / "a,b.csv";
  std::ofstream(odd) << "0.1,0.2\n0.3,0.4\n";
  const auto one =
      run_cli(std::vector<std::string>{"run", "--means", odd.string(), "--alpha", "0.5", "-T",
                                       "100", "-R", "2", "--quiet", "--json"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(nlohmann::json::parse(one.out)["cells"].size(), 1u);
  const auto empty = run_cli(std::vector<std::string>{
      "run", "--means", shared_data("synthetic_4x9.csv") + ",", "-T", "100", "-R", "2", "--quiet"});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("--means (key 'instance.means'): game 2 of the list is empty"),
            std::string::npos)
      << empty.err;
}

}  // namespace
}  // namespace pfmab::testing
