// The real program end to end: JSON shape, digests across thread counts, the
// table.
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "run_cli.hpp"
#include "temp_dir.hpp"
#include "time_used.hpp"

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

// How much of a cell's regret is communication (issue 26): C times the mean
// exchanges over the mean regret, in the run's summary and in the file's,
// and 0 where an exchange costs nothing. The regret counts C per exchange,
// so the share of pf-alloc at C = 10 is well above 0 and below 1.
TEST(CliRun, TheCommunicationShareIsCTimesTheExchangesOverTheRegret) {
  TempDir dir("comm-share");
  const auto output = dir / "out.h5";
  const auto run = run_cli({"run", "--means", shared_data("synthetic_4x9.csv"), "--alpha", "0.5",
                            "-C", "0,10", "--algorithm", "pf-alloc,pf-ucb", "-T", "1e5", "-R", "8",
                            "-o", output.string(), "-q", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto summary = run_cli({"summary", "--json", output.string()});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  for (const auto& text : {run.out, summary.out}) {
    const auto cells = nlohmann::json::parse(text)["cells"];
    ASSERT_EQ(cells.size(), 4u);
    for (const auto& c : cells) {
      const double cost = c["keys"]["comm_cost"], exchanges = c["comm_count"]["mean"],
                   regret = c["regret"]["mean"], share = c["comm_share"];
      ASSERT_GT(exchanges, 0.0);
      EXPECT_DOUBLE_EQ(share, cost * exchanges / regret) << c;
      if (cost > 0) {
        EXPECT_GT(share, 0.0) << c;
        EXPECT_LT(share, 1.0) << c;
      }
    }
  }
  const auto table = run_cli({"summary", output.string()});
  EXPECT_NE(table.out.find("comm share"), std::string::npos) << table.out;
}

// C* depends on the game only (the means, the alpha it is measured at, the
// reward family): an output stores it once per game under /games, and each
// cell names its game (issue 26). Two alphas x two algorithms x two
// horizons: eight cells, two games, each C* the run's.
TEST(CliRun, AnOutputStoresEachGamesCStarOnce) {
  TempDir dir("games");
  const auto output = dir / "out.h5";
  const auto r = run_cli({"run", "--means", shared_data("synthetic_4x9.csv"), "--alpha", "0,0.5",
                          "--algorithm", "pf-ucb,pf-alloc", "-T", "1e3,1e4", "-R", "2", "-o",
                          output.string(), "-q", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto cells = nlohmann::json::parse(r.out)["cells"];
  ASSERT_EQ(cells.size(), 8u);
  const hid_t file = H5Fopen(output.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const auto read = [](hid_t object, const char* name, hid_t type, void* value) {
    const hid_t attribute = H5Aopen(object, name, H5P_DEFAULT);
    EXPECT_GE(H5Aread(attribute, type, value), 0) << name;
    H5Aclose(attribute);
  };
  const hid_t games = H5Gopen2(file, "games", H5P_DEFAULT);
  H5G_info_t info;
  ASSERT_GE(H5Gget_info(games, &info), 0);
  EXPECT_EQ(info.nlinks, 2u);
  std::map<double, std::uint64_t> game_of_alpha;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const hid_t cell = H5Gopen2(file, fmt::format("cells/{:04}", c).c_str(), H5P_DEFAULT);
    std::uint64_t game = 0;
    read(cell, "game", H5T_NATIVE_UINT64, &game);
    H5Gclose(cell);
    // the cells of one alpha share a game, those of another do not
    const auto [at, first] = game_of_alpha.emplace(cells[c]["alpha"].get<double>(), game);
    EXPECT_EQ(at->second, game) << c;
    const hid_t group = H5Gopen2(games, fmt::format("{:04}", game).c_str(), H5P_DEFAULT);
    double c_star = 0.0, alpha = -1.0;
    read(group, "c_star", H5T_NATIVE_DOUBLE, &c_star);
    read(group, "alpha", H5T_NATIVE_DOUBLE, &alpha);
    H5Gclose(group);
    EXPECT_EQ(c_star, cells[c]["bounds"]["c_star"].get<double>()) << c;
    EXPECT_EQ(alpha, cells[c]["alpha"].get<double>()) << c;
  }
  EXPECT_EQ(game_of_alpha.size(), 2u);
  H5Gclose(games);
  H5Fclose(file);
}

// A damaged output whose regret rows are NaN: its summary table says n/a
// where there is no number, never nan (issue 25).
TEST(CliRun, ASummaryOfNanRowsPrintsNotAvailableNotNan) {
  TempDir dir("nan-rows");
  const auto output = dir / "out.h5";
  const auto r = run_cli({"run", "--means", shared_data("synthetic_4x9.csv"), "--alpha", "0.5",
                          "-T", "1e4", "-R", "4", "-o", output.string(), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  {
    const hid_t file = H5Fopen(output.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    const hid_t set = H5Dopen2(file, "cells/0000/replications", H5P_DEFAULT);
    ASSERT_GE(set, 0);
    const hid_t space = H5Dget_space(set);
    const auto rows = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
    // the records' regret field alone: HDF5 writes the fields named in the
    // memory type and leaves the others
    const hid_t grid = H5Dopen2(file, "cells/0000/checkpoints", H5P_DEFAULT);
    const hid_t grid_space = H5Dget_space(grid);
    const auto checkpoints = static_cast<hsize_t>(H5Sget_simple_extent_npoints(grid_space));
    const hid_t regret = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &checkpoints);
    const hid_t field = H5Tcreate(H5T_COMPOUND, checkpoints * sizeof(double));
    H5Tinsert(field, "regret", 0, regret);
    const std::vector<double> nan(rows * checkpoints, std::nan(""));
    EXPECT_GE(H5Dwrite(set, field, H5S_ALL, H5S_ALL, H5P_DEFAULT, nan.data()), 0);
    H5Tclose(field);
    H5Tclose(regret);
    H5Sclose(grid_space);
    H5Dclose(grid);
    H5Sclose(space);
    H5Dclose(set);
    H5Fclose(file);
  }
  const auto summary = run_cli({"summary", output.string()});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_EQ(summary.out.find("nan"), std::string::npos) << summary.out;
  EXPECT_NE(summary.out.find("n/a"), std::string::npos) << summary.out;
}

TEST(CliRun, DigestIsTheSameAtThreadCountsOneFourTwo) {
  const auto one = run_cli(small_run("1"));
  const auto four = run_cli(small_run("4"));
  const auto two = run_cli(small_run("2"));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(without_time_used(one.out), without_time_used(four.out));
  EXPECT_EQ(without_time_used(one.out), without_time_used(two.out));
}

// What each cell's replications took, in the report of a run without an
// output: every replication measured, none in no time.
TEST(CliRun, TheReportSaysWhatEachCellTook) {
  const auto r = run_cli(small_run("2"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out);  // kept: the loop reads into it
  for (const auto& cell : report["cells"]) {
    EXPECT_EQ(cell["timed_replications"], 16) << cell;
    EXPECT_GT(cell["cpu_seconds"].get<double>(), 0.0) << cell;
    EXPECT_GT(cell["wall_seconds"].get<double>(), 0.0) << cell;
    EXPECT_DOUBLE_EQ(cell["cpu_seconds_per_replication"].get<double>(),
                     cell["cpu_seconds"].get<double>() / 16);
    EXPECT_DOUBLE_EQ(cell["wall_seconds_per_replication"].get<double>(),
                     cell["wall_seconds"].get<double>() / 16);
  }
  auto table = small_run("2");
  table.pop_back();  // --json
  const auto printed = run_cli(table);
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  for (const auto* label : {"cpu ms/rep", "wall ms/rep", "cpu s", "wall s", "cpu, wall ms/rep: "}) {
    EXPECT_NE(printed.out.find(label), std::string::npos) << label << "\n" << printed.out;
  }
}

// The file sums the times as the run's report does, row by row in order:
// `summary` of it prints what `run -o` printed, times included.
TEST(CliRun, AnOutputSaysWhatEachCellTookAsTheRunsReportSaid) {
  TempDir dir("time-used");
  const auto output = dir / "out.h5";
  auto args = small_run("2");
  args.insert(args.end(), {"-o", output.string()});
  const auto run = run_cli(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto summary = run_cli({"summary", output.string(), "--json"});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_EQ(summary.out, run.out);
}

// The Thompson sampling baselines draw from streams of their own besides
// the rewards (local-thompson one per client, centralized-thompson the
// server's): one digest on 1 and 2 threads, on Bernoulli and Poisson rewards.
TEST(CliRun, ThompsonSamplingHasOneDigestOnOneAndTwoThreads) {
  for (const std::string rewards : {"bernoulli", "poisson"}) {
    SCOPED_TRACE(rewards);
    const auto run = [&](const std::string& threads) {
      return run_cli({"run", "--means", shared_data("synthetic_4x9.csv"), "--rewards", rewards,
                      "--algorithm", "local-thompson,centralized-thompson", "--alpha", "0.5,1",
                      "--horizon", "2e4", "--replications", "6", "--threads", threads, "--json"});
    };
    const auto one = run("1"), two = run("2");
    ASSERT_EQ(one.exit_code, 0) << one.err;
    ASSERT_EQ(two.exit_code, 0) << two.err;
    EXPECT_EQ(printed_digest(one), printed_digest(two));
  }
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
  EXPECT_NE(r.out.find(" 96.7 "), std::string::npos) << r.out;   // 14 log 1000 = 96.709
  EXPECT_NE(r.out.find(" 4858.5"), std::string::npos) << r.out;  // Theorem 2
}

TEST(CliBounds, EachReasonForNaIsPrintedOnceWithItsRows) {
  // Poisson rewards are not sub-Gaussian: Theorem 2 is n/a in every row, for
  // the same reason, said once
  const auto r = run_cli({"bounds", "--means-inline", "0.8,0.2;0.7,0.5", "--rewards", "poisson",
                          "--alpha", "0,0.5,1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string why =
      "Th.2 n/a: rows 1-3: Theorem 2 assumes sub-Gaussian rewards; Poisson rewards are not\n";
  EXPECT_NE(r.out.find(why), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Th.2 n/a"), r.out.rfind("Th.2 n/a")) << r.out;
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

// The 2x2 of tests/unit/theory/allocation_test.cpp, solved by hand there:
// C* = 0.85 / 0.62 + 0.55 / 0.2 at alpha = 0.5 (Theorem 1 says 2.5, less).
const std::vector<std::string> kCStar2x2{"--means-inline", "1,0;1,0.6", "--alpha", "0.5",
                                         "--horizon",      "1000"};

TEST(CliBounds, CStarBesideTheorem1InTheTablesJsonAndOutput) {
  const double c_star = 0.85 / 0.62 + 0.55 / 0.2;
  std::vector<std::string> args{"bounds", "--json"};
  args.insert(args.end(), kCStar2x2.begin(), kCStar2x2.end());
  const auto r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto b = nlohmann::json::parse(r.out)["cells"][0]["bounds"];
  EXPECT_NEAR(b["c_star"].get<double>(), c_star, 1e-6 * c_star);
  EXPECT_NEAR(b["c_star_log_T"].get<double>(), b["c_star"].get<double>() * std::log(1000.0), 1e-9);
  EXPECT_LT(b["theorem1_constant"].get<double>(), b["c_star"].get<double>());
  EXPECT_FALSE(b.contains("c_star_note"));

  args.erase(args.begin() + 1);  // the table
  const auto table = run_cli(args);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("C* log T"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find(" 4.12 "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("no bound on the regret at a finite T"), std::string::npos) << table.out;

  // The run's report, its output's attributes read back by summary, and the
  // ratio regret / (C* log T) with its interval.
  const TempDir dir("c-star");
  std::vector<std::string> run{"run", "--replications",         "20", "--json",
                               "-o",  (dir / "out.h5").string()};
  run.insert(run.end(), kCStar2x2.begin(), kCStar2x2.end());
  const auto ran = run_cli(run);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const auto cell = nlohmann::json::parse(ran.out)["cells"][0];
  EXPECT_EQ(cell["bounds"], b);
  const double scale = b["c_star_log_T"].get<double>();
  const auto& ratio = cell["regret_over_c_star_log_T"];
  EXPECT_DOUBLE_EQ(ratio["mean"].get<double>(), cell["regret"]["mean"].get<double>() / scale);
  EXPECT_DOUBLE_EQ(ratio["ci95"][0].get<double>(), cell["regret"]["ci95"][0].get<double>() / scale);
  EXPECT_DOUBLE_EQ(ratio["ci95"][1].get<double>(), cell["regret"]["ci95"][1].get<double>() / scale);
  const auto summary = run_cli({"summary", "--json", (dir / "out.h5").string()});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_EQ(nlohmann::json::parse(summary.out)["cells"][0]["bounds"], b);
  const auto shown = run_cli({"summary", (dir / "out.h5").string()});
  EXPECT_NE(shown.out.find("regret / C* log T"), std::string::npos) << shown.out;
}

// Bernoulli rewards have their own C*, the KL program's (the unit tests of
// theory::kl_optimal_allocation check its values): positive, and by
// Pinsker's inequality (KL >= 2 (mu - lambda)^2) at most the Gaussian one at
// sigma 1/2. A game of more pulls to plan than that solver takes says so.
TEST(CliBounds, BernoulliRewardsHaveTheKlProgramsCStarWithinItsLimit) {
  const auto c_star = [](std::vector<std::string> rewards) {
    std::vector<std::string> args{"bounds",          "--json",  "--means-inline",
                                  "0.8,0.2;0.7,0.5", "--alpha", "0.5"};
    args.insert(args.end(), rewards.begin(), rewards.end());
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out)["cells"][0]["bounds"]["c_star"];
  };
  const auto bernoulli = c_star({"--rewards", "bernoulli"});
  const auto gaussian = c_star({"--rewards", "gaussian", "--sigma", "0.5"});
  ASSERT_TRUE(bernoulli.is_number()) << bernoulli;
  EXPECT_GT(bernoulli.get<double>(), 0.0);
  EXPECT_LE(bernoulli.get<double>(), gaussian.get<double>());

  std::string row(129, '0');  // 65 zeros: 2 clients x 67 arms, 2 x 66 = 132 pulls to plan
  for (std::size_t i = 1; i < row.size(); i += 2) row[i] = ',';
  const auto wide = run_cli({"bounds", "--json", "--rewards", "bernoulli", "--means-inline",
                             "0.9,0.5," + row + ";0.5,0.9," + row, "--alpha", "0.5"});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  const auto w = nlohmann::json::parse(wide.out)["cells"][0]["bounds"];
  EXPECT_TRUE(w["c_star"].is_null());  // NaN
  EXPECT_NE(w["c_star_note"].get<std::string>().find("limit 128"), std::string::npos) << w;
}

// Exponential rewards, whose KL(mu, lambda) is concave in lambda past 2 mu:
// C* was n/a wherever an alternative could move a mean there (alpha 0, 0.5
// and 0.9 on this game). It is at least Theorem 1's constant (C* is the
// tight lower bound) and, at alpha 1, Lai and Robbins' per client, which
// Theorem 1's is there (relative 1e-6: the KL program's certified gap).
TEST(CliBounds, ExponentialRewardsHaveACStarWhereTheirKlIsConcave) {
  const auto r = run_cli({"bounds", "--json", "--rewards", "exponential", "--means-inline",
                          "0.2,0.5,1;0.3,1,0.2;0.9,0.1,0.4", "--alpha", "0,0.5,0.9,1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto cells = nlohmann::json::parse(r.out)["cells"];
  ASSERT_EQ(cells.size(), 4u);
  for (const auto& cell : cells) {
    const auto& b = cell["bounds"];
    ASSERT_TRUE(b["c_star"].is_number()) << b;
    EXPECT_FALSE(b.contains("c_star_note")) << b;
    const double theorem1 = b["theorem1_constant"].get<double>();
    EXPECT_GE(b["c_star"].get<double>(), theorem1 * (1.0 - 1e-6)) << b;
  }
  const auto& one = cells[3]["bounds"];
  EXPECT_NEAR(one["c_star"].get<double>(), one["theorem1_constant"].get<double>(),
              1e-6 * one["c_star"].get<double>());
}

// A game one distinct best arm past the solver's limit (257 clients, each
// its own best arm): the run does not wait for a solve, its C* is n/a with
// the reason in the JSON and the table, and the replications run.
TEST(CliRun, AGameBeyondTheSolversLimitReportsCStarNotAvailableAndRuns) {
  const TempDir dir("beyond-solver");
  std::string csv;
  for (int m = 0; m < 257; ++m) {
    for (int k = 0; k < 257; ++k) csv += (k ? "," : "") + std::string(k == m ? "0.9" : "0.2");
    csv += '\n';
  }
  std::ofstream(dir / "means.csv") << csv;
  const std::vector<std::string> args{
      "run", "--means", (dir / "means.csv").string(), "--alpha", "0.5", "-T", "300", "-R",
      "2",   "-q"};
  auto json_args = args;
  json_args.push_back("--json");
  const auto r = run_cli(json_args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto cell = nlohmann::json::parse(r.out)["cells"][0];
  EXPECT_TRUE(cell["bounds"]["c_star"].is_null());  // NaN
  const std::string why =
      "257 distinct best arms among 257 arms; the solver's dense steps grow as K L^2, limit "
      "256^3 (docs/limits.md)";
  EXPECT_EQ(cell["bounds"]["c_star_note"], why);
  EXPECT_EQ(cell["replications"], 2);
  const auto table = run_cli(args);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("C* n/a: row 1: " + why), std::string::npos) << table.out;
}

}  // namespace
}  // namespace pfmab::testing
