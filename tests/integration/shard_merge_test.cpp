// Job-array shards and their merge, through the real program: shards run
// apart (any thread count, any order) and merged give the file a single run
// gives, row for row, summary for summary, digest for digest; a partial merge
// says which replications it holds; every bad merge is refused with exit
// status 2, one line, and no output written or changed.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "pfmab/io/results_file.hpp"

#include "fixtures.hpp"
#include "io/cell_summary.hpp"
#include "io/hdf5.hpp"
#include "io/results_layout.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace pfmab::testing {
namespace {

namespace fs = std::filesystem;
namespace h5 = io::h5;

// 600 replications: three shards of 200, each with 200-row chunks (its
// share), which the merge's output keeps from its first shard.
std::vector<std::string> experiment(const std::string& seed = "7") {
  return {"--means",        shared_data("synthetic_4x9.csv"),
          "--alpha",        "0.2,0.9",
          "--horizon",      "20000",
          "--replications", "600",
          "--seed",         seed,
          "--quiet",        "--json"};
}

std::vector<std::string> run_args(const fs::path& output, std::vector<std::string> extra = {},
                                  const std::string& seed = "7") {
  return run_to(experiment(seed), output, extra);
}

std::string bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Every statistic of every summary series of cell `cell`, as stored.
std::vector<std::vector<double>> stored_summaries(const fs::path& path, std::size_t cell) {
  h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  std::vector<std::vector<double>> out;
  h5::Handle group(H5Gopen2(file.get(), io::group_name(cell).c_str(), H5P_DEFAULT));
  for (auto& series : io::read_summary(group.get())) {
    for (auto& statistic : series) out.push_back(std::move(statistic));
  }
  return out;
}

class ShardMerge : public ::testing::Test {
 protected:
  // The single run and its three shards, made once for the suite.
  static void SetUpTestSuite() {
    temp_ = new TempDir("shards");
    const auto whole = run_cli(run_args(*temp_ / "whole.h5"));
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    whole_digest_ = new std::string(printed_digest(whole));
    // in another order than their index, each on another thread count
    for (const auto& [shard, threads] : {std::pair{"2/3", "2"}, {"0/3", "1"}, {"1/3", "3"}}) {
      const auto part = *temp_ / ("part-" + std::string(1, shard[0]) + ".h5");
      const auto r = run_cli(run_args(part, {"--shard", shard, "--threads", threads}));
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
  }
  static void TearDownTestSuite() {
    delete temp_;
    delete whole_digest_;
  }

  static fs::path part(int i) { return *temp_ / ("part-" + std::to_string(i) + ".h5"); }

  static TempDir* temp_;
  static std::string* whole_digest_;
};

TempDir* ShardMerge::temp_ = nullptr;
std::string* ShardMerge::whole_digest_ = nullptr;

TEST_F(ShardMerge, ThreeShardsMergedAreTheSingleRun) {
  TempDir out("merged");
  const auto merged = out / "merged.h5";
  const auto r = run_cli({"merge", part(2).string(), part(0).string(), part(1).string(), "-o",
                          merged.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(printed_digest(r), *whole_digest_);

  const io::ResultsReader single(*temp_ / "whole.h5"), joined(merged);
  EXPECT_EQ(joined.shard(), sim::Shard{});
  EXPECT_FALSE(joined.partial());
  ASSERT_EQ(joined.cells().size(), 2u);
  for (std::size_t c = 0; c < 2; ++c) {
    SCOPED_TRACE("cell " + std::to_string(c));
    EXPECT_EQ(joined.cells()[c].ranges, (std::vector<sim::ReplicationRange>{{0, 600}}));
    ASSERT_EQ(joined.cells()[c].done, 600u);
    const auto a = single.read(c, 0, 600), b = joined.read(c, 0, 600);
    for (std::size_t i = 0; i < a.size(); ++i) {
      expect_same_result(b[i], a[i], "replication " + std::to_string(i));
    }
    // the summaries too, bit for bit (NaN never: both cells are complete)
    EXPECT_EQ(stored_summaries(merged, c), stored_summaries(*temp_ / "whole.h5", c));
    // what the replications took: the shards', added in shard order
    sim::TimeUsed used;
    for (int i = 0; i < 3; ++i) {
      const io::ResultsReader reader(part(i));  // kept: `shard` is its
      const auto& shard = reader.cells()[c];
      ASSERT_TRUE(shard.used.has_value());
      EXPECT_EQ(shard.used->replications, shard.done) << "shard " << i;
      EXPECT_GT(shard.used->cpu_seconds, 0.0) << "shard " << i;
      used += *shard.used;
    }
    ASSERT_TRUE(joined.cells()[c].used.has_value());
    EXPECT_EQ(joined.cells()[c].used->replications, 600u);
    EXPECT_EQ(joined.cells()[c].used->cpu_seconds, used.cpu_seconds);
    EXPECT_EQ(joined.cells()[c].used->wall_seconds, used.wall_seconds);
  }
  // nothing left beside it
  EXPECT_EQ(std::distance(fs::directory_iterator(out.dir()), fs::directory_iterator()), 1);
}

TEST_F(ShardMerge, AShardHasItsShareAndNoSummaryAndContinuesUnchanged) {
  {
    const io::ResultsReader shard(part(1));
    EXPECT_EQ(shard.shard(), (sim::Shard{1, 3}));
    EXPECT_EQ(shard.cells()[0].ranges, (std::vector<sim::ReplicationRange>{{200, 400}}));
    EXPECT_EQ(shard.cells()[0].done, 200u);
    // its rows are replications 200 to 399 of the single run
    const io::ResultsReader single(*temp_ / "whole.h5");
    const auto a = single.read(1, 200, 200), b = shard.read(1, 0, 200);
    for (std::size_t i = 0; i < a.size(); ++i) {
      expect_same_result(b[i], a[i], "replication " + std::to_string(200 + i));
    }
    for (const auto& stat : stored_summaries(part(1), 0)) EXPECT_TRUE(std::isnan(stat.back()));
  }  // closed: HDF5's file lock would keep the run below from writing it
  // the same command again finds it complete and changes nothing
  const auto before = bytes_of(part(1));
  const auto again = run_cli(run_args(part(1), {"--shard", "1/3"}));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(bytes_of(part(1)), before);
}

TEST_F(ShardMerge, PartialMergeRecordsWhatItHoldsAndSummarisesIt) {
  TempDir out("partial");
  const auto merged = out / "partial.h5";
  const auto r = run_cli(
      {"merge", part(0).string(), part(2).string(), "-o", merged.string(), "--partial", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out)["cells"][0];
  EXPECT_EQ(report["replications"], 400);
  EXPECT_EQ(report["replications_requested"], 600);

  const io::ResultsReader joined(merged), single(*temp_ / "whole.h5");
  EXPECT_TRUE(joined.partial());
  EXPECT_EQ(joined.cells()[0].ranges, (std::vector<sim::ReplicationRange>{{0, 200}, {400, 600}}));
  // its summary is of replications 0-199 and 400-599, in that order
  auto present = single.read(0, 0, 200);
  for (auto& r400 : single.read(0, 400, 200)) present.push_back(std::move(r400));
  double sum = 0.0;
  for (const auto& p : present) sum += p.series.regret.back();
  const auto stored_mean = stored_summaries(merged, 0)[0].back();  // regret, mean, at T
  EXPECT_NEAR(stored_mean, sum / 400.0, 1e-9 * std::abs(stored_mean));
  EXPECT_DOUBLE_EQ(report["regret"]["mean"].get<double>(), stored_mean);

  // and it is final: a run cannot continue it
  const auto resumed = run_cli(run_args(merged));
  EXPECT_EQ(resumed.exit_code, 2);
  EXPECT_NE(resumed.err.find("partial merge"), std::string::npos) << resumed.err;
}

TEST(ShardMergeAcrossCells, MoreShardsThanACellHasReplicationsShareOutTheCells) {
  // 10 cells of 2 replications in 5 and 7 shards: cheap PF-UCB cells and
  // local-ucb cells (every slot drawn, far costlier), each shard a share of
  // the estimated cost (sim::split); merged, the single run
  TempDir dir("across");
  const std::vector<std::string> sweep{"--means",        shared_data("synthetic_4x9.csv"),
                                       "--alpha",        "0,0.2,0.5,0.9,1",
                                       "--algorithm",    "pf-ucb,local-ucb",
                                       "--horizon",      "10000",
                                       "--replications", "2",
                                       "--quiet",        "--json"};
  const auto whole = run_cli(run_to(sweep, dir / "whole.h5"));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  for (const int count : {5, 7}) {
    SCOPED_TRACE(std::to_string(count) + " shards");
    std::vector<std::string> merge{
        "merge", "-o", (dir / ("merged-" + std::to_string(count) + ".h5")).string(), "--json"};
    std::uint64_t local_ucb_replications = 0;
    for (int i = 0; i < count; ++i) {
      const auto part = dir / fmt::format("part-{}-of-{}.h5", i, count);
      const auto r = run_cli(run_to(sweep, part, {"--shard", fmt::format("{}/{}", i, count)}));
      ASSERT_EQ(r.exit_code, 0) << r.err;
      merge.push_back(part.string());
      // the costly local-ucb replications (the last five cells') are what
      // the cost shares out: 10 of them among the shards, 1 or 2 each
      const io::ResultsReader shard(part);
      std::uint64_t local = 0;
      for (std::size_t c = 5; c < 10; ++c) local += shard.cells()[c].done;
      EXPECT_GE(local, 1u) << "shard " << i;
      EXPECT_LE(local, 2u) << "shard " << i;
      local_ucb_replications += local;
    }
    EXPECT_EQ(local_ucb_replications, 10u);
    const auto merged = run_cli(merge);
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    EXPECT_EQ(printed_digest(merged), printed_digest(whole));
  }
}

// ---------------------------------------------------------------------------
// Refusals

struct BadMerge {
  std::string name;
  std::vector<std::string> parts;  // under the suite's directory, or {out} for the case's
  std::string expected;            // words of the one line
  std::vector<std::string> flags;
};

void PrintTo(const BadMerge& c, std::ostream* os) { *os << c.name; }

class ShardMergeRefused : public ShardMerge, public ::testing::WithParamInterface<BadMerge> {
 protected:
  // Files only some cases need: made in the suite's directory on first use.
  static void make_others() {
    if (fs::exists(*temp_ / "other-0.h5")) return;
    ASSERT_EQ(run_cli(run_args(*temp_ / "other-0.h5", {"--shard", "0/3"}, "8")).exit_code, 0);
    ASSERT_EQ(run_cli(run_args(*temp_ / "half-1.h5", {"--shard", "1/2"})).exit_code, 0);
    // a shard killed before it finished: its second cell's count set back,
    // as a run killed there leaves it
    fs::copy_file(part(1), *temp_ / "cut-1.h5");
    h5::Handle file(H5Fopen((*temp_ / "cut-1.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    h5::Handle done(H5Dopen2(file.get(), "cells/0001/replications_done", H5P_DEFAULT));
    h5::overwrite(done.get(), std::vector<std::uint64_t>{57});
    std::ofstream(*temp_ / "not-hdf5.h5") << "text\n";
  }
};

TEST_P(ShardMergeRefused, ExitTwoOneLineNothingWritten) {
  ASSERT_NO_FATAL_FAILURE(make_others());
  const auto& c = GetParam();
  TempDir out("refused");
  const auto output = out / "out.h5";
  std::vector<std::string> args{"merge"};
  for (const auto& p : c.parts)
    args.push_back(p == "{out}" ? output.string() : (*temp_ / p).string());
  args.insert(args.end(), {"-o", output.string()});
  args.insert(args.end(), c.flags.begin(), c.flags.end());
  if (c.name == "output_exists") std::ofstream(output) << "precious\n";
  if (c.name == "output_is_a_shard") fs::copy_file(part(1), output);
  const auto before = fs::exists(output) ? bytes_of(output) : std::string();

  const auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  EXPECT_EQ(r.err.rfind("pfmab: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
  // no output made, an existing one untouched, no temporary left
  if (before.empty()) {
    EXPECT_TRUE(fs::is_empty(out.dir()));
  } else {
    EXPECT_EQ(bytes_of(output), before);
    EXPECT_EQ(std::distance(fs::directory_iterator(out.dir()), fs::directory_iterator()), 1);
  }
}

INSTANTIATE_TEST_SUITE_P(
    BadMerges, ShardMergeRefused,
    ::testing::Values(
        BadMerge{"missing_shard", {"part-0.h5", "part-2.h5"}, "shard 1 of 3 is missing"},
        BadMerge{"overlapping_shards",
                 {"part-0.h5", "part-1.h5", "part-1.h5", "part-2.h5"},
                 "are both shard 1/3: overlapping shards"},
        BadMerge{"other_experiment",
                 {"other-0.h5", "part-1.h5", "part-2.h5"},
                 "is a shard of another experiment than '"},
        BadMerge{"other_experiment_says_what_differs",
                 {"other-0.h5", "part-1.h5", "part-2.h5"},
                 "(seed: 7 against 8; from "},
        BadMerge{"other_split", {"part-0.h5", "half-1.h5"}, "shards of different splits"},
        BadMerge{"incomplete_shard",
                 {"part-0.h5", "cut-1.h5", "part-2.h5"},
                 "is incomplete: cells/0001 holds 57 of its 200 replications"},
        BadMerge{"a_whole_run", {"whole.h5"}, "is not a shard"},
        BadMerge{"not_hdf5",
                 {"part-0.h5", "not-hdf5.h5"},
                 "not-hdf5.h5' is not a readable pfmab output: not an HDF5 file"},
        BadMerge{"no_such_file", {"part-0.h5", "part-9.h5"}, "does not exist"},
        BadMerge{
            "output_exists", {"part-0.h5", "part-1.h5", "part-2.h5"}, "exists; use --overwrite"},
        BadMerge{"output_is_a_shard",
                 {"part-0.h5", "{out}", "part-2.h5"},
                 "out.h5' is also an input of this command",
                 {"--overwrite"}}),
    [](const ::testing::TestParamInfo<BadMerge>& info) { return info.param.name; });

}  // namespace
}  // namespace pfmab::testing
