#include "pfmab/algorithms/registry.hpp"

#include <array>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/io/experiment.hpp"
#include "pfmab/io/parameters.hpp"
#include "pfmab/util/error.hpp"

#include "run_cli.hpp"

namespace pfmab::algorithms {
namespace {

// An algorithm registered at run time, as python/src/ registers a Python
// class: explore-then-commit under another name, with one option of its own.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const std::array<io::Parameter, 2> late_options{{
    {.key = "algorithm.pulls_per_arm",
     .type = io::ValueType::whole,
     .fallback = "100",
     .sweeps = true,
     .least = 1},
    {.key = "algorithm.late_only",
     .order = io::Parameter::kRegisteredAtRunTime,
     .type = io::ValueType::whole,
     .fallback = "3",
     .sweeps = true},
}};
#pragma GCC diagnostic pop
const OptionGroup late_group{"late", late_options};
const AlgorithmEntry late{"late",
                          &late_group,
                          [](const io::CellValues& values, const sim::CellContext& cell) {
                            return find_algorithm("explore-then-commit").configure(values, cell);
                          },
                          {}};

// Registers `late` once per process, whichever test runs first.
void register_late() {
  static const bool once = [] {
    register_algorithm(late);
    return true;
  }();
  (void)once;
}

// A short experiment on the synthetic game, `algorithm` the [algorithm]
// table's lines.
io::Experiment load(const std::string& algorithm) {
  return io::load_experiment_text(
      "horizon = 1e4\nreplications = 2\nalpha = 0.5\n"
      "[instance]\nmeans = \"" +
          testing::shared_data("synthetic_4x9.csv") + "\"\n[algorithm]\n" + algorithm,
      "<text>", ".");
}

TEST(Registry, AnAlgorithmRegisteredAtRunTimeComesLastAndMovesNoParameter) {
  const auto algorithms_before = registered_algorithms();
  const auto parameters_before = io::parameters();
  const auto alpha = io::index_of("alpha");
  const auto pulls_per_arm = io::index_of("algorithm.pulls_per_arm");
  register_late();
  EXPECT_THROW(register_algorithm(late), UserError);  // a name is registered once
  // the spans taken before still hold what they held
  EXPECT_EQ(algorithms_before.front().name, "pf-ucb");
  EXPECT_EQ(parameters_before[alpha].key, "alpha");
  EXPECT_EQ(registered_algorithms().back().name, "late");
  // every parameter keeps its index (part of the streams' keys); the key it
  // shares with explore-then-commit is one parameter; its own comes last
  EXPECT_EQ(io::index_of("alpha"), alpha);
  EXPECT_EQ(io::index_of("algorithm.pulls_per_arm"), pulls_per_arm);
  EXPECT_EQ(io::index_of("algorithm.late_only"), io::parameters().size() - 1);
  EXPECT_EQ(owner_of("algorithm.pulls_per_arm")->owner, "explore-then-commit");
  EXPECT_TRUE(declares(&late_group, "algorithm.pulls_per_arm"));
}

TEST(Parameters, AnOptionRegisteredAtRunTimeIsRecordedOnlyInItsAlgorithmsCells) {
  register_late();
  const auto e = load("name = [\"explore-then-commit\", \"late\"]\nlate_only = [3, 4]\n");
  ASSERT_EQ(e.cells.size(), 3u);  // late_only is not crossed with explore-then-commit
  EXPECT_FALSE(e.canonical["cells"][0].contains("late_only"));
  EXPECT_EQ(e.canonical["cells"][1]["late_only"], 3);
  EXPECT_EQ(e.canonical["cells"][2]["late_only"], 4);
  EXPECT_EQ(e.canonical["cells"][0]["pulls_per_arm"], 100);  // shared: in both
  EXPECT_EQ(e.canonical["cells"][1]["pulls_per_arm"], 100);
  // refused for another algorithm, by the engine's one check
  try {
    load("name = \"pf-ucb\"\nlate_only = 4\n");
    FAIL() << "late_only given to pf-ucb";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("it is late's option"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace pfmab::algorithms
