#include "pfmab/model/instance.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "pfmab/model/means_table.hpp"
#include "pfmab/model/mixed_model.hpp"
#include "pfmab/util/error.hpp"

#include "run_cli.hpp"

namespace pfmab::model {
namespace {

TEST(MeansTable, ReadsCommentsBlankLinesAndRows) {
  const auto path = std::filesystem::temp_directory_path() / "pfmab-instance-test.csv";
  std::ofstream(path) << "# a comment\n\n0.5, 0.25\n  # indented comment\n1,0\r\n";
  const auto table = read_means_csv(path);
  std::filesystem::remove(path);
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0], (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ(table.rows[1], (std::vector<double>{1.0, 0.0}));
  EXPECT_EQ(table.row_origin[1], path.string() + ":5");
}

TEST(MeansTable, InlineRows) {
  const auto table = parse_inline_means("1,0; 0.5,0.5");
  EXPECT_EQ(table.rows, (std::vector<std::vector<double>>{{1, 0}, {0.5, 0.5}}));
  EXPECT_THROW(parse_inline_means("1,0;0.5"), UserError);
  EXPECT_THROW(parse_inline_means("1,x"), UserError);
}

TEST(Instance, GlobalMeansAverageTheClients) {
  const Instance instance(parse_inline_means("1,0,0.5;0,1,0.25"), {});
  EXPECT_EQ(instance.clients(), 2u);
  EXPECT_EQ(instance.arms(), 3u);
  EXPECT_EQ(instance.global_mean(0), 0.5);
  EXPECT_EQ(instance.global_mean(2), 0.375);
}

TEST(Instance, BernoulliMeansMustBeProbabilities) {
  EXPECT_THROW(Instance(parse_inline_means("0.5,1.25"), families::RewardFamily{"bernoulli"}),
               UserError);
  EXPECT_NO_THROW(Instance(parse_inline_means("0.5,1.25"), families::RewardFamily{}));
  EXPECT_THROW(Instance(parse_inline_means("0.5"), families::RewardFamily{"gaussian", {-1.0}}),
               UserError);
}

// The paper's synthetic game (appendix): client m's local best arm is arm m,
// the global best is arm 9 (index 8, mean 0.5 against 0.4875 for arms 5-7).
TEST(MixedModel, SyntheticGameOptimalArmsAndGaps) {
  const Instance instance(read_means_csv(testing::shared_data("synthetic_4x9.csv")), {});
  const MixedModel local(instance, 1.0), global(instance, 0.0);
  for (std::size_t m = 0; m < 4; ++m) {
    EXPECT_EQ(local.optimal_arm(m), m);
    EXPECT_EQ(global.optimal_arm(m), 8u);
  }
  EXPECT_NEAR(global.gap(0, 4), 0.5 - 0.4875, 1e-15);
  EXPECT_NEAR(local.gap(0, 4), 1.0 - 0.9, 1e-15);
  // alpha = 0.5, client 0: mu'_0 = 0.5 * 1 + 0.5 * 0.25 = 0.625, mu'_4 = 0.5 * 0.9 + 0.5 * 0.4875
  const MixedModel half(instance, 0.5);
  EXPECT_EQ(half.optimal_arm(0), 4u);
  EXPECT_DOUBLE_EQ(half.mixed_mean(0, 0), 0.625);
  EXPECT_DOUBLE_EQ(half.optimal_mixed_mean(0), 0.5 * 0.9 + 0.5 * 0.4875);
  EXPECT_EQ(half.gap(0, 4), 0.0);
}

TEST(MixedModel, RejectsAlphaOutsideUnitInterval) {
  const Instance instance(parse_inline_means("1,0"), {});
  EXPECT_THROW(MixedModel(instance, -0.1), UserError);
  EXPECT_THROW(MixedModel(instance, 1.1), UserError);
  EXPECT_THROW(MixedModel(instance, std::nan("")), UserError);
}

}  // namespace
}  // namespace pfmab::model
