#include "pfmab/io/experiment.hpp"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "pfmab/util/error.hpp"

#include "run_cli.hpp"

namespace pfmab::io {
namespace {

namespace fs = std::filesystem;

// An experiment file in a fresh folder, next to a copy-free reference to the
// shared synthetic instance.
class ExperimentFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pfmab-experiment-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  Experiment load(const std::string& text, const std::vector<FlagValues>& overrides = {}) const {
    return load_experiment(write("exp.toml", text), overrides);
  }

  fs::path dir_;
};

const std::string synthetic = "means = \"" + testing::shared_data("synthetic_4x9.csv") + "\"\n";

TEST_F(ExperimentFile, DefaultsAreThePapersSyntheticSetting) {
  const auto e = load("[instance]\n" + synthetic);
  EXPECT_EQ(e.seed, 1u);
  EXPECT_EQ(e.replications(0), 100u);
  ASSERT_EQ(e.cells.size(), 5u);  // alpha = 0, 0.2, 0.5, 0.9, 1
  EXPECT_EQ(e.cells[2].spec().alpha, 0.5);
  EXPECT_EQ(e.cells[0].spec().horizon, 1'000'000u);
  EXPECT_EQ(e.cells[0].spec().comm_cost, 1.0);
  EXPECT_EQ(e.values[0].real("algorithm.confidence_constant"), 4.0);
  EXPECT_EQ(e.values[0].word("algorithm.schedule"), "doubling-log");
  EXPECT_EQ(e.cells[0].spec().instance->clients(), 4u);
  EXPECT_EQ(e.cells[0].spec().checkpoints.log_points, 40u);
}

TEST_F(ExperimentFile, ListsMakeACartesianProductFirstKeyOutermost) {
  const auto e = load(
      "alpha = [0.2, 0.9]\nhorizon = [1e3, 1e4, 1e5]\nreplications = 1e3\n"
      "[instance]\n" +
      synthetic + "rewards = [\"gaussian\", \"bernoulli\"]\n");
  ASSERT_EQ(e.cells.size(), 2u * 2u * 3u);
  EXPECT_EQ(e.replications(0), 1000u);
  // order: rewards, then alpha, then horizon (see parameters())
  EXPECT_EQ(e.cells[0].spec().instance->rewards().name(), "gaussian");
  EXPECT_EQ(e.cells[6].spec().instance->rewards().name(), "bernoulli");
  EXPECT_EQ(e.cells[0].spec().alpha, 0.2);
  EXPECT_EQ(e.cells[3].spec().alpha, 0.9);
  EXPECT_EQ(e.cells[0].spec().horizon, 1000u);
  EXPECT_EQ(e.cells[1].spec().horizon, 10'000u);
  EXPECT_EQ(e.cells[2].spec().horizon, 100'000u);
  EXPECT_EQ(e.canonical["cells"].size(), 12u);
}

TEST_F(ExperimentFile, CsvPathsAreRelativeToTheFileAndInlineMatricesWork) {
  write("game.csv", "# two clients\n1,0\n0,1\n");
  const auto e =
      load("alpha = 0.5\n[instance]\nmeans = [\"game.csv\", [[0.5, 0.25], [0.25, 0.5]]]\n");
  ASSERT_EQ(e.cells.size(), 2u);
  EXPECT_EQ(e.cells[0].spec().instance_name, "game.csv");
  EXPECT_EQ(e.cells[0].spec().instance->local_mean(1, 1), 1.0);
  EXPECT_EQ(e.cells[1].spec().instance_name, "inline");
  EXPECT_EQ(e.cells[1].spec().instance->local_mean(0, 1), 0.25);
}

TEST_F(ExperimentFile, OverridesReplaceTheFilesValues) {
  const std::vector<FlagValues> overrides{flag_values("alpha", "1"), flag_values("seed", "99"),
                                          flag_values("algorithm.confidence_constant", "1")};
  const auto e = load(
      "alpha = [0.2, 0.5]\nseed = 3\n[algorithm]\nschedule = \"doubling\"\n"
      "[instance]\n" +
          synthetic,
      overrides);
  ASSERT_EQ(e.cells.size(), 1u);
  EXPECT_EQ(e.cells[0].spec().alpha, 1.0);
  EXPECT_EQ(e.seed, 99u);
  EXPECT_EQ(e.values[0].real("algorithm.confidence_constant"), 1.0);
  // the file's other values in the same table stay
  EXPECT_EQ(e.values[0].word("algorithm.schedule"), "doubling");
  EXPECT_NE(e.text.find("command-line overrides"), std::string::npos);
}

TEST_F(ExperimentFile, CanonicalFormIdentifiesResultsNotSpelling) {
  write("game.csv", "1,0\n0,1\n");
  const auto from_file = load("seed = 2\nalpha = 0.5\n[instance]\nmeans = \"game.csv\"\n");
  const auto from_matrix = load(
      "# same game, written inline\nseed = 2\nalpha = [0.5]\n"
      "[instance]\nmeans = [[1, 0], [0, 1]]\n");
  EXPECT_EQ(from_file.canonical, from_matrix.canonical);
  const auto other_seed = load("seed = 3\nalpha = 0.5\n[instance]\nmeans = \"game.csv\"\n");
  EXPECT_NE(from_file.canonical, other_seed.canonical);
}

TEST_F(ExperimentFile, ErrorsNameFileLineAndKey) {
  try {
    load("seed = 1\n\nalpha = [0.5, 2.0]\n[instance]\n" + synthetic);
    FAIL() << "alpha = 2 was accepted";
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find((dir_ / "exp.toml").string() + ":3:"), std::string::npos) << message;
    EXPECT_NE(message.find("'alpha'"), std::string::npos) << message;
    EXPECT_NE(message.find("[0, 1]"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace pfmab::io
