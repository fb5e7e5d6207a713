// pf-alloc (docs/pf-alloc.md) through the real program: the engine's
// determinism (threads, shards, resume) holds for it, both fidelity modes run
// it, and on the synthetic game it beats PF-UCB at every alpha of the paper.
#include <map>
#include <string>
#include <utility>
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

// Gaussian rewards take the closed-form plan and the widths; Bernoulli
// rewards the KL program and the likelihood ratios (docs/pf-alloc.md, "Other
// reward families").
TEST(PfAlloc, TheSameDigestAtOneAndTwoThreadsInEitherMode) {
  for (const char* rewards : {"gaussian", "bernoulli"}) {
    for (const char* mode : {"aggregated", "per-pull"}) {
      const std::vector<std::string> args{"--algorithm", "pf-alloc", "--alpha",   "0,0.5,1",
                                          "-T",          "2e4",      "-R",        "12",
                                          "--mode",      mode,       "--rewards", rewards};
      auto one = args, two = args;
      one.insert(one.end(), {"--threads", "1"});
      two.insert(two.end(), {"--threads", "2"});
      EXPECT_EQ(run_json(one)["digest"], run_json(two)["digest"]) << rewards << ", " << mode;
    }
  }
}

// The rest of the determinism contract, as for every algorithm: two shards
// merged, and a run grown from 10 to 24 replications on its own output (the
// path a resume takes: the file's rows kept, the missing ones drawn from
// their own streams), give the digest of the single run.
TEST(PfAlloc, ShardsMergedAndAGrownOutputGiveTheSingleRunsDigest) {
  for (const char* rewards : {"gaussian", "bernoulli"}) {
    SCOPED_TRACE(rewards);
    TempDir dir(std::string("pf-alloc-") + rewards);
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
                                    "--json",
                                    "--rewards",
                                    rewards};
      args.insert(args.end(), extra.begin(), extra.end());
      const auto r = run_cli(args);
      EXPECT_EQ(r.exit_code, 0) << r.err;
      return r;
    };
    const auto whole = printed_digest(run("whole.h5", {"-R", "24"}));
    run("part-0.h5", {"-R", "24", "--shard", "0/2", "--threads", "1"});
    run("part-1.h5", {"-R", "24", "--shard", "1/2"});
    const auto merged =
        run_cli({"merge", (dir / "part-1.h5").string(), (dir / "part-0.h5").string(), "-o",
                 (dir / "merged.h5").string(), "--json"});
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    EXPECT_EQ(printed_digest(merged), whole);
    run("grown.h5", {"-R", "10"});
    EXPECT_EQ(printed_digest(run("grown.h5", {"-R", "24"})), whole);
  }
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

// Bernoulli rewards planned by the KL program (docs/pf-alloc.md, "Other
// reward families"): 40 replications of the synthetic game at alpha 0.5,
// T = 10^6, seed 1. Measured 1.44 [1.37, 1.51] times the Bernoulli C* log T;
// the Gaussian plan at sigma 1/2 it replaces gave 5.39 [5.24, 5.53] on the
// same seed. The bound 2 is 15 standard errors above the first and far
// below the second; one replication that exploits a wrong arm for much of
// T (a chance tie left unbroken did: 42,558 against about 750) takes the
// interval's upper end past it.
TEST(PfAlloc, BernoulliRewardsPlannedWithTheirKl) {
  const auto out = run_json({"--algorithm", "pf-alloc", "--rewards", "bernoulli", "--alpha", "0.5",
                             "-T", "1e6", "-R", "40", "--seed", "1"});
  ASSERT_EQ(out["cells"].size(), 1u);
  const auto& ratio = out["cells"][0]["regret_over_c_star_log_T"];
  EXPECT_LT(ratio["ci95"][1].get<double>(), 2.0) << ratio;
  EXPECT_EQ(out["cells"][0]["identified"].get<double>(), 1.0);
}

// Four identical clients whose two best arms are level (means `row`: 0.9,
// 0.9, 0.1, 0.1, 0.1 or 1, 1, 0, 0, 0) at alpha 0.5 (docs/pf-alloc.md, rule
// 7). Each run: pf-alloc and PF-UCB at T = 10^9 and 10^12, seed 1, in the
// aggregated mode.
std::map<std::string, std::map<double, nlohmann::json>> tied_game(const std::string& row,
                                                                  std::vector<std::string> extra) {
  std::vector<std::string> args{"run",
                                "--means-inline",
                                row + ";" + row + ";" + row + ";" + row,
                                "--alpha",
                                "0.5",
                                "-T",
                                "1e9,1e12",
                                "--algorithm",
                                "pf-alloc,pf-ucb",
                                "--json",
                                "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::map<double, nlohmann::json>> regret;  // algorithm -> T ->
  const auto out = nlohmann::json::parse(r.out);
  for (const auto& cell : out["cells"]) {
    regret[cell["algorithm"].get<std::string>()][cell["horizon"].get<double>()] = cell["regret"];
  }
  return regret;
}

// Noiseless rewards (Gaussian at sigma 1e-100; Bernoulli means 1 and 0): the
// estimates tie exactly, and the tie used to explore evenly, a linear regret
// (1.05e9 at T = 10^9). Every run is the same, so the bound is exact: from
// 10^9 to 10^12 the regret grows at most as log T does (by 4/3) with 1.5
// times room for the Bernoulli game's 10 more phases' exchanges (80 of its
// 432), and stays below PF-UCB's.
TEST(PfAlloc, LogarithmicWhereTheBestArmsTieExactly) {
  for (const auto& [row, extra] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"0.9,0.9,0.1,0.1,0.1", {"--sigma", "1e-100", "-R", "4"}},
           {"1,1,0,0,0", {"--rewards", "bernoulli", "-R", "4"}}}) {
    const auto regret = tied_game(row, extra);
    const double at_9 = regret.at("pf-alloc").at(1e9)["mean"].get<double>();
    const double at_12 = regret.at("pf-alloc").at(1e12)["mean"].get<double>();
    EXPECT_LE(at_12, 1.5 * (4.0 / 3.0) * at_9) << extra[1];
    for (const double t : {1e9, 1e12}) {
      EXPECT_LT(regret.at("pf-alloc").at(t)["mean"].get<double>(),
                regret.at("pf-ucb").at(t)["mean"].get<double>())
          << extra[1] << " T " << t;
    }
  }
}

// With noise (sigma 1) the estimates of the level arms differ by a little
// and the program plans that gap as it is (docs/pf-alloc.md, Limits); 20
// replications: pf-alloc's 95% interval lies below PF-UCB's at T = 10^9 and
// 10^12 (measured: 2,147 [1,692, 2,602] against 5,269 [4,801, 5,738], and
// 5,448 [5,001, 5,895] against 6,982 [6,525, 7,439]).
TEST(PfAlloc, BelowPfUcbWhereTheBestArmsTieInNoise) {
  const auto regret = tied_game("0.9,0.9,0.1,0.1,0.1", {"-R", "20"});
  for (const double t : {1e9, 1e12}) {
    EXPECT_LT(regret.at("pf-alloc").at(t)["ci95"][1].get<double>(),
              regret.at("pf-ucb").at(t)["ci95"][0].get<double>())
        << "T " << t;
  }
}

// A phase begun at t may end as late as t^(1 + margin) and, once every
// client has fixed its arm, at t^2 (docs/pf-alloc.md, "Communication"), so
// the exchanges grow slower than log T. The synthetic game at
// alpha 0.5 and C = 1, where every client fixes its arm by T = 10^10, 20
// replications, seed 1: the mean exchanges at T = 10^12 are at most 1.5
// times those at 10^8, the issue's target. Doubling phases to T, as before,
// made them 1.68 times (256 against 152, results/tight-bound); this schedule
// 1.13 over 200 replications (seed 2027, docs/pf-alloc.md). A replication's
// phases vary by one or two, so 20 replications' means are within a few
// percent of that.
TEST(PfAlloc, ExchangesLevelOffOnceEveryClientFixesItsArm) {
  const auto out = run_json({"--algorithm", "pf-alloc", "--alpha", "0.5", "--comm-cost", "1", "-T",
                             "1e8,1e12", "-R", "20", "--seed", "1", "--mode", "aggregated"});
  std::map<double, double> exchanges;  // T -> mean
  for (const auto& cell : out["cells"]) {
    exchanges[cell["horizon"].get<double>()] = cell["comm_count"]["mean"].get<double>();
  }
  ASSERT_EQ(exchanges.size(), 2u);
  EXPECT_LE(exchanges.at(1e12), 1.5 * exchanges.at(1e8))
      << "exchanges at 1e8 " << exchanges.at(1e8) << ", at 1e12 " << exchanges.at(1e12);
}

// A phase may run on as long as its exploitation risks less regret than its
// exchanges cost (docs/pf-alloc.md, "Communication"), so a costlier exchange
// makes fewer of them. The synthetic game at alpha 1 (C* smallest, where
// communication weighs most), T = 10^10, 50 replications, seed 1. At C = 0
// the schedule is the one that ignores C; at C = 10 that schedule would pay
// the regret at C = 0 plus 10 per exchange (the exchanges do not depend on
// C there): measured 4,312 [4,223, 4,401] + 10 x 186.4 = 6,176, against
// 5,226 [5,062, 5,389] with 77.1 exchanges. Asserted: at most 0.6 times the
// exchanges, and the interval at C = 10 wholly below the lower end of the
// C-blind one (a margin of about 700, five times the interval's half-width).
TEST(PfAlloc, ACostlierExchangeMakesFewerOfThem) {
  const auto out = run_json({"--algorithm", "pf-alloc", "--alpha", "1", "--comm-cost", "0,10", "-T",
                             "1e10", "-R", "50", "--seed", "1", "--mode", "aggregated"});
  std::map<double, nlohmann::json> by_cost;  // C -> cell
  for (const auto& cell : out["cells"]) by_cost[cell["keys"]["comm_cost"].get<double>()] = cell;
  ASSERT_EQ(by_cost.size(), 2u);
  const auto& free = by_cost.at(0.0);
  const auto& costly = by_cost.at(10.0);
  const double exchanges_free = free["comm_count"]["mean"].get<double>();
  EXPECT_LE(costly["comm_count"]["mean"].get<double>(), 0.6 * exchanges_free);
  const double blind_low = free["regret"]["ci95"][0].get<double>() + 10.0 * exchanges_free;
  EXPECT_LT(costly["regret"]["ci95"][1].get<double>(), blind_low)
      << "at C = 10 " << costly["regret"] << "; the C-blind schedule from " << blind_low;
}

}  // namespace
}  // namespace pfmab::testing
