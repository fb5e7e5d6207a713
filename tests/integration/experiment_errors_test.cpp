// The real program on bad experiment files. Every mistake in a file -- TOML
// syntax, an unknown key or table, a wrong type, a value out of range, a
// missing or malformed means file -- gets exactly one line on stderr,
//
//   pfmab: error: FILE:LINE:COL: key 'K': problem
//
// exit status 2 and nothing on stdout, from `pfmab run` and `pfmab validate`
// alike; and `pfmab run -o OUT.h5` neither creates OUT.h5 nor changes an
// existing one (not even with --overwrite).
//
// The line is printable whatever the file holds (control bytes, invalid
// UTF-8, a newline in a key or path are escaped) and short: a value of
// megabytes is quoted by a short excerpt, a file nested 50,000 levels deep
// is refused before toml++ recurses into it (tests/unit/io/toml_limits_test.cpp
// checks each limit at its edge).
//
// The cases are a table (BadExperiment, bad_experiments.cpp); three
// parameterised tests check each one. The fixture writes the case's lines to a fresh temporary directory as
// exp.toml, with any CSV files beside it; "{dir}" in the expected words stands
// for that directory and "{data}" in the TOML for the shared data folder.
// Every case is small (T <= 50, one replication, one alpha) so that one the
// program wrongly accepts still finishes at once.
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "bad_experiments.hpp"
#include "printable.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace pfmab::testing {
namespace {

namespace fs = std::filesystem;


// ---------------------------------------------------------------------------
// Helpers

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << "cannot write " << p;
}

std::size_t count(const std::string& text, const std::string& word) {
  std::size_t n = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

std::string shown(const CliResult& r) {
  return "\n--- exit " + std::to_string(r.exit_code) + " --- stderr ---\n" + r.err +
         "--- stdout ---\n" + r.out;
}

// Every file under `dir`, with its contents.
std::set<std::pair<std::string, std::string>> snapshot(const fs::path& dir) {
  std::set<std::pair<std::string, std::string>> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const auto name = fs::relative(entry.path(), dir).string();
    files.emplace(name, entry.is_regular_file() ? slurp(entry.path()) : std::string("<dir>"));
  }
  return files;
}

// A valid output of a small experiment (not any case's), made once per
// process: what "an existing out.h5" holds before a failing run.
const std::string& existing_output() {
  static const std::string bytes = [] {
    const auto dir = fs::temp_directory_path() /
                     ("pfmab-experiment-errors-reference-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "ref.toml") << "seed = 3\nhorizon = 200\nreplications = 2\nalpha = 0.7\n"
                                       "[instance]\nmeans = [[0.2, 0.6], [0.5, 0.1]]\n";
    const auto r = run_cli({"run", (dir / "ref.toml").string(), "-o", (dir / "ref.h5").string(),
                            "--quiet", "--threads", "1"});
    std::string text = r.exit_code == 0 ? slurp(dir / "ref.h5") : std::string();
    std::error_code ec;
    fs::remove_all(dir, ec);
    return text;
  }();
  return bytes;
}

// ---------------------------------------------------------------------------
// The parameterised tests

class ExperimentErrors : public ::testing::TestWithParam<BadExperiment> {
 protected:
  void SetUp() override {
    const auto& c = GetParam();
    ASSERT_GE(c.line, 0);
    ASSERT_LE(c.line, static_cast<int>(c.lines.size())) << "the case's line is past its file";
    ASSERT_TRUE(write_case(c, temp_.dir())) << "cannot write the case into " << temp_.dir();
  }

  fs::path experiment() const { return temp_.dir() / "exp.toml"; }
  fs::path output() const { return temp_.dir() / "out.h5"; }
  std::string expand(const std::string& text) const {
    return replace_all(text, "{dir}", temp_.dir().string());
  }

  std::vector<std::string> run_args(bool overwrite = false) const {
    std::vector<std::string> args{"run", experiment().string(), "-o", output().string(), "--quiet"};
    if (overwrite) args.push_back("--overwrite");
    return args;
  }

  // One line "pfmab: error: {dir}/exp.toml:LINE:...", naming the key and the
  // problem, exit status 2, nothing on stdout.
  void expect_one_clear_line(const CliResult& r) const {
    const auto& c = GetParam();
    const auto s = shown(r);
    EXPECT_EQ(r.exit_code, 2) << s;
    EXPECT_TRUE(r.out.empty()) << "something on stdout" << s;
    ASSERT_FALSE(r.err.empty()) << s;
    EXPECT_EQ(r.err.back(), '\n') << "stderr does not end with a newline" << s;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "stderr is not exactly one line" << s;
    EXPECT_TRUE(printable(std::string_view(r.err).substr(0, r.err.size() - 1)))
        << "stderr holds control bytes or invalid UTF-8" << s;
    EXPECT_LE(r.err.size(), 600u) << "stderr is not short" << s;

    const std::string file = experiment().string();
    const std::string place = c.line > 0 ? file + ":" + std::to_string(c.line) + ":" : file + ": ";
    EXPECT_EQ(r.err.rfind("pfmab: error: " + place, 0), 0u)
        << "stderr does not start with \"pfmab: error: " << place << "\"" << s;
    if (c.line > 0) {
      EXPECT_EQ(count(r.err, place), 1u) << "the place is given more than once" << s;
    }
    if (!c.key.empty()) {
      EXPECT_NE(r.err.find("'" + c.key + "'"), std::string::npos)
          << "stderr does not name the key '" << c.key << "'" << s;
      EXPECT_LE(count(r.err, "key '" + c.key + "': "), 1u)
          << "the key is given more than once" << s;
    }
    for (const auto& word : c.expected) {
      const auto w = expand(word);
      EXPECT_NE(r.err.find(w), std::string::npos) << "stderr does not mention \"" << w << "\"" << s;
    }
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << s;
  }

  TempDir temp_{"experiment-errors"};
};

// 1. `pfmab run exp.toml -o out.h5`: the one line, and no out.h5 (nor any
// other file) afterwards.
TEST_P(ExperimentErrors, RunGivesOneLineAndWritesNothing) {
  const auto before = snapshot(temp_.dir());
  const auto r = run_cli(run_args());
  SCOPED_TRACE("pfmab run " + experiment().string());
  expect_one_clear_line(r);
  EXPECT_FALSE(fs::exists(output())) << "out.h5 was created";
  EXPECT_EQ(snapshot(temp_.dir()), before) << "the run created or changed files";
}

// 2. With an existing (valid) out.h5: the same line, and out.h5 is byte for
// byte unchanged -- without --overwrite and with it.
TEST_P(ExperimentErrors, RunLeavesAnExistingOutputUnchanged) {
  const auto& bytes = existing_output();
  ASSERT_FALSE(bytes.empty()) << "cannot make the reference output";
  ASSERT_NO_FATAL_FAILURE(write_file(output(), bytes));
  const auto fresh = run_cli(run_args());  // the message with no out.h5 around

  for (const bool overwrite : {false, true}) {
    SCOPED_TRACE(overwrite ? "with --overwrite" : "without --overwrite");
    const auto before = snapshot(temp_.dir());
    const auto r = run_cli(run_args(overwrite));
    expect_one_clear_line(r);
    EXPECT_EQ(r.err, fresh.err) << "the existing output changed the message";
    ASSERT_TRUE(fs::exists(output())) << "out.h5 was removed";
    EXPECT_TRUE(slurp(output()) == bytes) << "out.h5 changed";
    EXPECT_EQ(snapshot(temp_.dir()), before) << "the run created or changed files";
  }
}

// 3. `pfmab validate exp.toml`: the same exit status and the same line.
TEST_P(ExperimentErrors, ValidateGivesTheSameLine) {
  const auto v = run_cli({"validate", experiment().string()});
  SCOPED_TRACE("pfmab validate " + experiment().string());
  expect_one_clear_line(v);
  const auto r = run_cli(run_args());
  EXPECT_EQ(v.err, r.err) << "validate and run disagree" << shown(v) << shown(r);
}

INSTANTIATE_TEST_SUITE_P(BadFile, ExperimentErrors, ::testing::ValuesIn(bad_experiments()),
                         [](const ::testing::TestParamInfo<BadExperiment>& info) {
                           return info.param.name;
                         });

TEST(ExperimentErrorsTable, HasAtLeastTwentyFourDistinctCases) {
  const auto cases = bad_experiments();
  EXPECT_GE(cases.size(), 24u);
  std::set<std::string> names;
  for (const auto& c : cases) EXPECT_TRUE(names.insert(c.name).second) << c.name;
}

// ---------------------------------------------------------------------------
// Positive controls: small valid files are accepted, so the failures above
// come from the bad value and nothing else.

class ExperimentErrorsControl : public ::testing::Test {
 protected:
  void write_experiment(const std::vector<std::string>& lines) const {
    std::string text;
    for (const auto& l : lines) text += replace_all(l, "{data}", PFMAB_SHARED_DATA) + "\n";
    ASSERT_NO_FATAL_FAILURE(write_file(experiment(), text));
  }
  fs::path experiment() const { return temp_.dir() / "exp.toml"; }
  fs::path output() const { return temp_.dir() / "out.h5"; }

  TempDir temp_{"experiment-errors-control"};
};

// The paper's instance, a sweep over alpha: 2 cells x 3 replications.
const std::vector<std::string> valid_sweep{"name = \"control\"",
                                           "seed = 11",
                                           "horizon = 2000",
                                           "replications = 3",
                                           "alpha = [0.2, 0.9]",
                                           "[instance]",
                                           "means = \"{data}/synthetic_4x9.csv\""};

TEST_F(ExperimentErrorsControl, ValidSweepValidates) {
  ASSERT_NO_FATAL_FAILURE(write_experiment(valid_sweep));
  const auto r = run_cli({"validate", experiment().string()});
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(r.err.empty()) << shown(r);
  EXPECT_NE(r.out.find("valid"), std::string::npos) << shown(r);
  EXPECT_NE(r.out.find("2 cells x 3 replications"), std::string::npos) << shown(r);
  EXPECT_FALSE(fs::exists(output()));
}

TEST_F(ExperimentErrorsControl, ValidSweepRunsAndCreatesTheOutput) {
  ASSERT_NO_FATAL_FAILURE(write_experiment(valid_sweep));
  const auto r =
      run_cli({"run", experiment().string(), "-o", output().string(), "--quiet", "--threads", "2"});
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(r.err.empty()) << shown(r);
  EXPECT_NE(r.out.find("pf-ucb"), std::string::npos) << shown(r);
  EXPECT_NE(r.out.find("digest"), std::string::npos) << shown(r);
  ASSERT_TRUE(fs::exists(output()));
  EXPECT_GT(fs::file_size(output()), 0u);
}

// The edges of the bad cases are fine: a relative CSV beside the file next to
// an inline matrix, Bernoulli means at 0 and 1, T = 2 with doubling-log, every
// table and key present.
TEST_F(ExperimentErrorsControl, EdgeValuesValidate) {
  ASSERT_NO_FATAL_FAILURE(write_file(temp_.dir() / "data/means.csv", "# edge\n0,1\n1,0.5\n"));
  ASSERT_NO_FATAL_FAILURE(
      write_experiment({"name = \"edges\"",
                        "description = \"every key at an edge\"",
                        "seed = 0",
                        "replications = 1",
                        "horizon = 2",
                        "alpha = [0.0, 1.0]",
                        "comm_cost = 0",
                        "mode = \"per-pull\"",
                        "[instance]",
                        "means = [\"data/means.csv\", [[0.0, 1.0], [1.0, 0.0]]]",
                        "rewards = \"bernoulli\"",
                        "[algorithm]",
                        "name = \"pf-ucb\"",
                        "schedule = \"doubling-log\"",
                        "lambda = 1e-9",
                        "schedule_factor = 1e-9",
                        "confidence_constant = 1e-9",
                        "log_term = \"MT\"",
                        "[checkpoints]",
                        "log_points = 100000",
                        "linear_points = 0"}));
  const auto r = run_cli({"validate", experiment().string()});
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(r.err.empty()) << shown(r);
  EXPECT_NE(r.out.find("valid: 4 cells x 1 replications, seed 0"), std::string::npos) << shown(r);
}

}  // namespace
}  // namespace pfmab::testing
