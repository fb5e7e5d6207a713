// pf-alloc (docs/pf-alloc.md) through the real program: the engine's
// determinism (threads, shards, resume) holds for it, both fidelity modes run
// it, and on the synthetic game it beats PF-UCB at every alpha of the paper.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fixtures.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace pfmab::testing {
namespace {

nlohmann::json run_json(std::vector<std::string> args) {
  args.insert(args.begin(), "run");
  args.insert(args.end(), {"--means", shared_data("synthetic_4x9.csv"), "--json"});
  const auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(PfAlloc, TheSameDigestAtOneAndTwoThreadsInEitherMode) {
  for (const char* mode : {"aggregated", "per-pull"}) {
    const std::vector<std::string> args{"--algorithm", "pf-alloc", "--alpha", "0,0.5,1", "-T",
                                        "2e4",         "-R",       "12",      "--mode",  mode};
    auto one = args, two = args;
    one.insert(one.end(), {"--threads", "1"});
    two.insert(two.end(), {"--threads", "2"});
    EXPECT_EQ(run_json(one)["digest"], run_json(two)["digest"]) << mode;
  }
}

// The rest of the determinism contract, as for every algorithm: two shards
// merged, and a run grown from 10 to 24 replications on its own output (the
// path a resume takes: the file's rows kept, the missing ones drawn from
// their own streams), give the digest of the single run.
TEST(PfAlloc, ShardsMergedAndAGrownOutputGiveTheSingleRunsDigest) {
  TempDir dir("pf-alloc");
  const auto run = [&](const std::string& output, std::vector<std::string> extra) {
    std::vector<std::string> args{"run",
                                  "--means",
                                  shared_data("synthetic_4x9.csv"),
                                  "--algorithm",
                                  "pf-alloc",
                                  "--alpha",
                                  "0,0.5,1",
                                  "-T",
                                  "2e4",
                                  "-o",
                                  (dir / output).string(),
                                  "--quiet",
                                  "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r;
  };
  const auto whole = printed_digest(run("whole.h5", {"-R", "24"}));
  run("part-0.h5", {"-R", "24", "--shard", "0/2", "--threads", "1"});
  run("part-1.h5", {"-R", "24", "--shard", "1/2"});
  const auto merged = run_cli({"merge", (dir / "part-1.h5").string(), (dir / "part-0.h5").string(),
                               "-o", (dir / "merged.h5").string(), "--json"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(printed_digest(merged), whole);
  run("grown.h5", {"-R", "10"});
  EXPECT_EQ(printed_digest(run("grown.h5", {"-R", "24"})), whole);
}

// 30 replications at T = 10^5, seed 1: pf-alloc's 95% interval lies wholly
// below PF-UCB's at every alpha (at T = 10^6 its mean is 3 to 10 times
// lower, docs/pf-alloc.md; the intervals here are a few percent wide).
TEST(PfAlloc, BelowPfUcbAtEveryAlphaOfTheSyntheticGame) {
  const auto out = run_json(
      {"--algorithm", "pf-alloc,pf-ucb", "--alpha", "0,0.2,0.5,0.9,1", "-T", "1e5", "-R", "30"});
  std::map<double, std::map<std::string, nlohmann::json>> regret;  // alpha -> algorithm ->
  for (const auto& cell : out["cells"]) {
    regret[cell["alpha"].get<double>()][cell["algorithm"].get<std::string>()] = cell["regret"];
  }
  ASSERT_EQ(regret.size(), 5u);
  for (const auto& [alpha, by] : regret) {
    EXPECT_LT(by.at("pf-alloc")["ci95"][1].get<double>(), by.at("pf-ucb")["ci95"][0].get<double>())
        << "alpha " << alpha << ": pf-alloc " << by.at("pf-alloc") << ", pf-ucb "
        << by.at("pf-ucb");
  }
}

// A phase begun at t may end as late as t^(1 + margin) and, once every
// client has fixed its arm, at t^2 (docs/pf-alloc.md, "Communication"), so
// the exchanges grow slower than log T. The synthetic game at
// alpha 0.5, where every client fixes its arm by T = 10^10, 20 replications,
// seed 1: the mean exchanges at T = 10^12 are at most 1.5 times those at
// 10^8, the issue's target. Doubling phases to T, as before, made them 1.68
// times (256 against 152, results/tight-bound); this schedule 1.32 over 200
// replications (seed 2027, docs/pf-alloc.md). A replication's phases vary by
// one or two, so 20 replications' means are within a few percent of that.
TEST(PfAlloc, ExchangesLevelOffOnceEveryClientFixesItsArm) {
  const auto out = run_json({"--algorithm", "pf-alloc", "--alpha", "0.5", "-T", "1e8,1e12", "-R",
                             "20", "--seed", "1", "--mode", "aggregated"});
  std::map<double, double> exchanges;  // T -> mean
  for (const auto& cell : out["cells"]) {
    exchanges[cell["horizon"].get<double>()] = cell["comm_count"]["mean"].get<double>();
  }
  ASSERT_EQ(exchanges.size(), 2u);
  EXPECT_LE(exchanges.at(1e12), 1.5 * exchanges.at(1e8))
      << "exchanges at 1e8 " << exchanges.at(1e8) << ", at 1e12 " << exchanges.at(1e12);
}

}  // namespace
}  // namespace pfmab::testing
