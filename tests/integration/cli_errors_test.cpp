// The real program on bad input: every mistake gets exactly one line on
// stderr, "pfmab: error: ..." naming what is wrong and where, exit status 2,
// nothing on stdout -- never a crash, a stack trace or a multi-line dump.
// The line is short and printable whatever the values hold: newlines,
// control bytes and invalid UTF-8 are escaped, long values cut.
//
// The cases are a table (ErrorCase); one parameterised test checks them all.
// Cases that need a means file carry its text: the fixture writes it to a
// fresh temporary directory, and "{dir}" in the arguments and in the expected
// words stands for that directory.
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "printable.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace pfmab::testing {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------
// Command lines

using Flag = std::pair<std::string, std::optional<std::string>>;

// `pfmab run` on the paper's 4x9 instance with small, valid settings (so a
// case that wrongly succeeds is quick), after applying `overrides`: a flag
// given here replaces the default's value, std::nullopt drops the flag, a
// new flag is appended. `extra` goes at the very end.
std::vector<std::string> run_args(const std::vector<Flag>& overrides = {},
                                  const std::vector<std::string>& extra = {}) {
  std::vector<Flag> flags{{"--means", shared_data("synthetic_4x9.csv")},
                          {"--alpha", "0.5"},
                          {"--horizon", "1000"},
                          {"--replications", "2"},
                          {"--seed", "7"},
                          {"--threads", "2"}};
  for (const auto& [name, value] : overrides) {
    bool found = false;
    for (auto& flag : flags) {
      if (flag.first == name) {
        flag.second = value;
        found = true;
      }
    }
    if (!found) flags.emplace_back(name, value);
  }
  std::vector<std::string> args{"run"};
  for (const auto& [name, value] : flags) {
    if (!value) continue;
    args.push_back(name);
    args.push_back(*value);
  }
  args.push_back("--quiet");
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The same, reading the means from the fixture's file.
std::vector<std::string> run_on_file(std::vector<Flag> overrides = {}) {
  overrides.emplace_back("--means", "{dir}/means.csv");
  return run_args(overrides);
}

std::string joined(const std::vector<std::string>& args) {
  std::string text = "pfmab";
  for (const auto& a : args) text += " '" + a + "'";
  return text;
}

// ---------------------------------------------------------------------------
// The table

struct ErrorCase {
  std::string name;                      // test name suffix: [A-Za-z0-9_]
  std::vector<std::string> args;         // after "pfmab"
  std::vector<std::string> expected;     // words the one line must contain
  std::optional<std::string> means_csv;  // text of {dir}/means.csv, if any
  // CLI11's own messages quote a flag's value in full: the command line cuts
  // the whole line at 1,000 characters (pfmab::message_chars)
  std::size_t max_length = 600;
};

// Just the name: CTest's test names end in "# GetParam() = <this>".
void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

std::vector<ErrorCase> error_cases() {
  const std::string csv = "{dir}/means.csv";
  return {
      // alpha outside [0, 1]
      {"alpha_above_one", run_args({{"--alpha", "1.5"}}), {"alpha", "1.5", "[0, 1]"}},
          {"alpha_below_zero", run_args({{"--alpha", "-0.1"}}), {"alpha", "-0.1", "[0, 1]"}},
          {"alpha_bad_in_list", run_args({{"--alpha", "0.2,1.01"}}), {"alpha", "1.01", "[0, 1]"}},
          {"alpha_nan", run_args({{"--alpha", "nan"}}), {"alpha", "nan", "[0, 1]"}},
          {"alpha_not_a_number", run_args({{"--alpha", "abc"}}), {"--alpha", "abc"}},
          {"alpha_empty", run_args({{"--alpha", ""}}), {"--alpha"}},

          // the means file: missing, empty, ragged, non-numeric
          {"means_file_missing",
           run_args({{"--means", "{dir}/missing.csv"}}),
           {"{dir}/missing.csv", "does not exist"}},
          {"means_file_is_a_directory", run_args({{"--means", "{dir}"}}), {"'{dir}'", "directory"}},
          // a right-to-left override would show the path backwards: escaped
          {"means_path_with_a_right_to_left_override",
           run_args({{"--means", "{dir}/evil\u202Evsc.csv"}}),
           {"evil\\u202evsc.csv", "does not exist"}},
          {"bernoulli_rewards_with_a_sigma",
           run_args({{"--rewards", "bernoulli"}, {"--sigma", "0.5"}}),
           {"sigma '0.5' has no effect on any cell", "Bernoulli rewards have no sigma"}},
          {"means_file_zero_bytes", run_on_file(), {"'" + csv + "'", "no data rows"}, ""},
          {"means_file_only_comments_and_blanks",
           run_on_file(),
           {"'" + csv + "'", "no data rows"},
           "# local means, rows = clients\n\n   \n# nothing else\n\t\n"},
          {"means_file_ragged_short_row",
           run_on_file(),
           {csv + ":4:", "has 2 values", csv + ":2", "has 3"},
           "# two clients, three arms\n0.1,0.2,0.3\n0.4,0.5,0.6\n0.7,0.8\n"},
          {"means_file_ragged_long_row",
           run_on_file(),
           {csv + ":3:", "has 4 values", csv + ":1", "has 3"},
           "0.1,0.2,0.3\n\n0.4,0.5,0.6,0.7\n"},
          {"means_file_non_numeric_word",
           run_on_file(),
           {csv + ":3:", "column 2", "'abc'", "not a number"},
           "0.1,0.2,0.3\n# comment\n0.4,abc,0.6\n"},
          {"means_file_non_numeric_suffix",
           run_on_file(),
           {csv + ":1:", "column 3", "'0.3x'", "not a number"},
           "0.1,0.2,0.3x\n0.4,0.5,0.6\n"},
          {"means_file_empty_cell",
           run_on_file(),
           {csv + ":2:", "column 2", "''", "not a number"},
           "0.1,0.2,0.3\n0.4,,0.6\n"},
          {"means_file_out_of_range",
           run_on_file(),
           {csv + ":1:", "column 2", "'1e400'", "out of the range"},
           "0.1,1e400\n0.4,0.5\n"},
          // finite but beyond the declared range: once regret -nan with exit 0
          {"means_file_beyond_range",
           run_on_file(),
           {csv + ":2", "column 1", "mean = 1e+308", "rescale them"},
           "0.1,0.2\n1e308,0.5\n"},
          {"comm_cost_beyond_range",  // once regret null with exit 0
           run_args({{"--comm-cost", "1.7e308"}}),
           {"--comm-cost", "C = 1.7e+308", "overflows the regret"}},
          {"means_file_semicolons",
           run_on_file(),
           {csv + ":1:", "column 1", "'0.1;0.2'", "not a number"},
           "0.1;0.2\n"},

          // NaN or infinite means
          {"means_nan",
           run_on_file(),
           {csv + ":2:", "column 3", "'nan'", "not finite"},
           "0.1,0.2,0.3\n0.4,0.5,nan\n"},
          {"means_NaN_capitalised",
           run_on_file(),
           {csv + ":1:", "column 1", "'NaN'", "not finite"},
           "NaN,0.2\n0.4,0.5\n"},
          {"means_inf",
           run_on_file(),
           {csv + ":1:", "column 2", "'inf'", "not finite"},
           "0.1,inf\n0.4,0.5\n"},
          {"means_minus_inf",
           run_on_file(),
           {csv + ":2:", "column 1", "'-inf'", "not finite"},
           "0.1,0.2\n-inf,0.5\n"},
          {"means_inline_nan",
           run_args({{"--means", std::nullopt}, {"--means-inline", "0.1,nan;0.2,0.3"}}),
           {"--means-inline row 1", "column 2", "not finite"}},

          // Bernoulli means outside [0, 1]
          {"bernoulli_mean_above_one",
           run_on_file({{"--rewards", "bernoulli"}}),
           {csv + ":4:", "column 2", "1.5", "outside [0, 1]"},
           "# Bernoulli\n0.1,0.2,0.3\n\n0.4,1.5,0.6\n"},
          {"bernoulli_mean_below_zero",
           run_on_file({{"--rewards", "bernoulli"}}),
           {csv + ":1:", "column 3", "-0.2", "outside [0, 1]"},
           "0.1,0.2,-0.2\n0.4,0.5,0.6\n"},

          // the other families' means and parameters
          {"poisson_mean_below_zero",
           run_on_file({{"--rewards", "poisson"}}),
           {csv + ":2:", "column 1", "Poisson mean = -0.5", "outside [0, 1e+09]"},
           "0.1,0.2\n-0.5,0.5\n"},
          {"exponential_mean_zero",
           run_on_file({{"--rewards", "exponential"}}),
           {csv + ":1:", "column 2", "exponential mean = 0", "outside (0, 1e+09]"},
           "0.1,0\n0.4,0.5\n"},
          {"student_t_nu_two",
           run_args({{"--rewards", "student-t"}, {"--nu", "2"}, {"--mode", "per-pull"}}),
           {"nu = 2", "outside (2, 1e+06]", "finite variance"}},
          {"gaussian_rewards_with_a_nu",
           run_args({{"--nu", "4.5"}}),
           {"nu '4.5' has no effect on any cell", "Gaussian rewards have no nu"}},
          // what an algorithm or the mode assumes of the rewards
          {"student_t_aggregated",
           run_args({{"--rewards", "student-t"}}),
           {"student-t rewards", "aggregated mode", "--mode per-pull"}},
          {"local_ucb_with_poisson_rewards",
           run_args({{"--rewards", "poisson"}, {"--algorithm", "local-ucb"}}),
           {"local-ucb: its bonus assumes sub-Gaussian rewards",
            "poisson rewards are not (local-kl-ucb and local-thompson run on them)"}},
          {"local_ucb_with_student_t_rewards",
           run_args(
               {{"--rewards", "student-t"}, {"--mode", "per-pull"}, {"--algorithm", "local-ucb"}}),
           {"local-ucb: its bonus assumes sub-Gaussian rewards; student-t rewards are not (pf-ucb "
            "runs "
            "on them)"}},
          {"local_thompson_with_student_t_rewards",
           run_args({{"--rewards", "student-t"},
                     {"--mode", "per-pull"},
                     {"--algorithm", "local-thompson"}}),
           {"local-thompson: it draws each arm's mean from its posterior; student-t rewards have "
            "none",
            "no conjugate prior", "pf-ucb"}},
          {"centralized_thompson_with_student_t_rewards",
           run_args({{"--rewards", "student-t"}, {"--algorithm", "centralized-thompson"}}),
           {"centralized-thompson: it draws each arm's mean from its posterior; student-t rewards "
            "have "
            "none"}},
          {"local_kl_ucb_with_student_t_rewards",
           run_args({{"--rewards", "student-t"},
                     {"--mode", "per-pull"},
                     {"--algorithm", "local-kl-ucb"}}),
           {"local-kl-ucb: its index reads the rewards' KL divergence",
            "student-t rewards have none"}},
          {"centralized_kl_ucb_with_student_t_rewards",
           run_args({{"--rewards", "student-t"},
                     {"--mode", "per-pull"},
                     {"--algorithm", "centralized-kl-ucb"}}),
           {"centralized-kl-ucb: its index reads the rewards' KL divergence",
            "student-t rewards have none"}},
          {"centralized_kl_ucb_with_exponential_rewards",
           run_on_file({{"--rewards", "exponential"}, {"--algorithm", "centralized-kl-ucb"}}),
           {"centralized-kl-ucb: its confidence region needs KL(mu, q) convex in q",
            "exponential rewards it is not past 2 mu", "local-kl-ucb runs on them"},
           "0.1,0.2\n0.4,0.5\n"},
          {"pf_alloc_with_student_t_rewards",
           run_args(
               {{"--rewards", "student-t"}, {"--mode", "per-pull"}, {"--algorithm", "pf-alloc"}}),
           {"pf-alloc: it plans with the rewards' KL divergence, which Student-t rewards lack",
            "no closed form"}},
          {"pf_alloc_with_exponential_rewards",
           run_on_file({{"--rewards", "exponential"}, {"--algorithm", "pf-alloc"}}),
           {"pf-alloc: it plans with the rewards' KL divergence", "convex in the mean",
            "exponential one is not"},
           "0.1,0.2\n0.4,0.5\n"},

#if PFMAB_PYTHON_MODULE_BUILT
          // an algorithm written in Python, named module:Class, that names no
          // pfmab.Algorithm (the binary runs it under Python: python_relaunch.hpp)
          {"python_algorithm_module_missing",
           run_args({{"--algorithm", "no_such_module:Policy"}}),
           {"algorithm 'no_such_module:Policy'", "no module named 'no_such_module'", "PYTHONPATH"}},
          {"python_algorithm_attribute_missing",
           run_args({{"--algorithm", "json:NoSuchPolicy"}}),
           {"algorithm 'json:NoSuchPolicy'", "module 'json'", "has no attribute 'NoSuchPolicy'"}},
          {"python_algorithm_not_an_algorithm",
           run_args({{"--algorithm", "json:JSONDecoder"}}),
           {"algorithm 'json:JSONDecoder'",
            "json.JSONDecoder is not a subclass of pfmab.Algorithm"}},
          {"python_algorithm_in_main",
           run_args({{"--algorithm", "__main__:Policy"}}),
           {"algorithm '__main__:Policy'", "defined in __main__", "put it in a module"}},
#else
          // a build without the Python module (the sanitizer presets) runs none
          {"python_algorithm_without_module",
           run_args({{"--algorithm", "some_module:Policy"}}),
           {"algorithm 'some_module:Policy'", "built without the Python package's engine module"}},
#endif

          // T < 1 and other bad horizons
          {"horizon_zero", run_args({{"--horizon", "0"}}), {"horizon"}},
          {"horizon_negative",
           run_args({{"--horizon", "-5"}}),
           {"horizon", "'-5'", "whole number"}},
          {"horizon_fractional",
           run_args({{"--horizon", "1.5"}}),
           {"horizon", "'1.5'", "whole number"}},
          {"horizon_not_a_number",
           run_args({{"--horizon", "abc"}}),
           {"horizon", "'abc'", "whole number"}},
          {"horizon_one_with_log_schedule",
           run_args({{"--horizon", "1"}}),
           {"horizon", "at least 2"}},

          // zero replications, zero threads
          {"replications_zero",
           run_args({{"--replications", "0"}}),
           {"replications", "at least 1"}},
          {"replications_negative", run_args({{"--replications", "-3"}}), {"replications", "'-3'"}},
          {"threads_zero", run_args({{"--threads", "0"}}), {"threads", "at least 1"}},
          {"threads_negative", run_args({{"--threads", "-1"}}), {"--threads", "-1"}},
          {"seed_negative", run_args({{"--seed", "-1"}}), {"--seed", "-1"}},

          // shards (run --shard I/N)
          {"shard_index_not_below_count", run_args({{"--shard", "2/2"}}), {"--shard '2/2'", "I/N"}},
          {"shard_without_count", run_args({{"--shard", "1"}}), {"--shard '1'", "I/N"}},
          {"shard_words", run_args({{"--shard", "a/b"}}), {"--shard 'a/b'", "I/N"}},
          {"shard_zero_count", run_args({{"--shard", "0/0"}}), {"--shard '0/0'", "I/N"}},
          {"shard_more_than_replications",
           run_args({{"--shard", "2/3"}}),
           {"--shard 2/3", "3 shards of a sweep of 2 replications", "at most 2"}},
          {"merge_without_output", {"merge", "{dir}/part-0.h5"}, {"--output"}},
          {"merge_without_shards", {"merge", "-o", "{dir}/out.h5"}, {"shards"}},
          {"sigma_empty", run_args({{"--sigma", ""}}), {"--sigma"}},

          // unknown options, subcommands, missing instance
          {"unknown_option", run_args({}, {"--bogus"}), {"--bogus"}},
          {"unknown_option_before_subcommand",
           [] {
             auto a = run_args();
             a.insert(a.begin(), "--bogus");
             return a;
           }(),
           {"--bogus"}},
          {"unknown_subcommand", {"frobnicate", "--horizon", "1000"}, {"frobnicate"}},
          {"no_subcommand", {}, {"subcommand"}},
          {"missing_means", run_args({{"--means", std::nullopt}}), {"--means"}},
          {"unknown_reward_family", run_args({{"--rewards", "cauchy"}}), {"'cauchy'", "gaussian"}},
          {"unknown_schedule", run_args({{"--schedule", "weekly"}}), {"'weekly'", "schedule"}},
          {"unknown_mode", run_args({{"--mode", "exact"}}), {"--mode", "'exact'", "aggregated"}},
          {"bounds_alpha_above_one",
           {"bounds", "--means", shared_data("synthetic_4x9.csv"), "--alpha", "1.5"},
           {"alpha", "1.5", "[0, 1]"}},
          {"bounds_unknown_option",
           {"bounds", "--means", shared_data("synthetic_4x9.csv"), "--quiet"},
           {"--quiet"}},

          // hostile values: escaped, cut, bounded
          {"rewards_with_control_bytes",
           run_args({{"--rewards", "gauss\x01\x1b[2J"}}),
           {"unknown reward family 'gauss\\x01\\x1b[2J'"}},
          {"schedule_with_a_newline",
           run_args({{"--schedule", "doubling\nlog"}}),
           {"unknown schedule 'doubling\\nlog'"}},
          {"horizon_of_100000_digits",
           run_args({{"--horizon", std::string(100'000, '9')}}),
           {"--horizon (key 'horizon'): horizon '" + std::string(60, '9') + "...'",
            "whole number"}},
          {"means_path_with_a_newline",
           run_args({{"--means", "{dir}/no\nsuch.csv"}}),
           {"cannot read means file '{dir}/no\\nsuch.csv'"}},
          {"means_inline_with_invalid_utf8",
           run_args({{"--means", std::nullopt}, {"--means-inline", "0.1,\xc3(;0.2,0.3"}}),
           {"--means-inline row 1", "column 2", "'\\xc3(' is not a number"}},
          {"means_file_with_a_nul_byte",
           run_on_file(),
           {csv + ":1:", "column 1", "'\\x00' is not a number"},
           std::string(1, '\0') + ",0.1\n0.2,0.3\n"},
          {"means_file_larger_than_16_MiB",
           run_on_file(),
           {"means file '" + csv + "' is larger than 16 MiB"},
           std::string((16 << 20) + 1, '#')},
          {"means_file_endless",
           run_args({{"--means", "/dev/zero"}}),
           {"means file '/dev/zero' is a character device, not a regular file"}},
          {"experiment_file_endless",
           {"validate", "/dev/zero"},
           {"experiment file '/dev/zero' is a character device, not a regular file"}},
          {"experiment_path_with_a_newline",
           {"validate", "{dir}/no\nsuch.toml"},
           {"no\\nsuch.toml"}},
          {"threads_of_100000_characters",
           run_args({{"--threads", "x\n" + std::string(100'000, 'y')}}),
           {"--threads", "x\\nyyy", "..."},
           std::nullopt,
           1100},
  };
}

// ---------------------------------------------------------------------------
// The fixture: a fresh temporary directory per test, removed afterwards.

class CliErrors : public ::testing::TestWithParam<ErrorCase> {
 protected:
  TempDir temp_{"cli-errors"};
};

TEST_P(CliErrors, OneClearLineAndExitStatusTwo) {
  const auto& c = GetParam();
  if (c.means_csv) ASSERT_NO_FATAL_FAILURE(temp_.write("means.csv", *c.means_csv));
  const auto args = temp_.expand(c.args);
  SCOPED_TRACE(joined(args));

  const auto r = run_cli(args);
  const std::string shown = "\n--- stderr ---\n" + r.err + "--- stdout ---\n" + r.out;

  EXPECT_EQ(r.exit_code, 2) << shown;
  EXPECT_TRUE(r.out.empty()) << shown;
  ASSERT_FALSE(r.err.empty()) << shown;
  EXPECT_EQ(r.err.back(), '\n') << "stderr does not end with a newline" << shown;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "stderr is not exactly one line" << shown;
  EXPECT_TRUE(printable(std::string_view(r.err).substr(0, r.err.size() - 1)))
      << "stderr holds control bytes or invalid UTF-8" << shown;
  EXPECT_LE(r.err.size(), c.max_length) << "stderr is not short" << shown;
  EXPECT_EQ(r.err.rfind("pfmab: error: ", 0), 0u)
      << "stderr does not start with 'pfmab: error: '" << shown;
  for (const auto& word : temp_.expand(c.expected)) {
    EXPECT_NE(r.err.find(word), std::string::npos)
        << "stderr does not mention \"" << word << "\"" << shown;
  }
}

INSTANTIATE_TEST_SUITE_P(BadInput, CliErrors, ::testing::ValuesIn(error_cases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                           return info.param.name;
                         });

// ---------------------------------------------------------------------------
// Positive controls: the same small commands with good input succeed, so the
// failures above come from the bad value and nothing else.

class CliErrorsControl : public ::testing::Test {
 protected:
  TempDir temp_{"cli-errors"};
};

void expect_success_with_table(const CliResult& r) {
  const std::string shown = "\n--- stderr ---\n" + r.err + "--- stdout ---\n" + r.out;
  EXPECT_EQ(r.exit_code, 0) << shown;
  EXPECT_TRUE(r.err.empty()) << shown;
  EXPECT_NE(r.out.find("pf-ucb"), std::string::npos) << shown;
  EXPECT_NE(r.out.find("regret"), std::string::npos) << shown;
  EXPECT_NE(r.out.find("digest"), std::string::npos) << shown;
}

TEST_F(CliErrorsControl, SmallValidRunOnSharedInstanceSucceeds) {
  const auto args = run_args();
  SCOPED_TRACE(joined(args));
  expect_success_with_table(run_cli(args));
}

TEST_F(CliErrorsControl, ValidRunOnEdgeValuesSucceeds) {
  // alpha at both ends of [0, 1], T = 2 (the smallest for doubling-log), one
  // replication, one thread.
  const auto args = run_args(
      {{"--alpha", "0,1"}, {"--horizon", "2"}, {"--replications", "1"}, {"--threads", "1"}});
  SCOPED_TRACE(joined(args));
  expect_success_with_table(run_cli(args));
}

// The reward families beyond the paper's run PF-UCB: Poisson and
// exponential in both modes, Student-t per pull (the only mode it has).
TEST_F(CliErrorsControl, OtherRewardFamiliesRunPfUcb) {
  ASSERT_NO_FATAL_FAILURE(temp_.write("means.csv", "0.5,2,0.2\n3,0.25,0.75\n"));
  for (const std::vector<Flag>& flags :
       {std::vector<Flag>{{"--rewards", "poisson"}, {"--mode", "aggregated"}},
        {{"--rewards", "poisson"}, {"--mode", "per-pull"}},
        {{"--rewards", "poisson"}, {"--mode", "aggregated"}, {"--preset", "authors-code"}},
        {{"--rewards", "exponential"}, {"--mode", "aggregated"}},
        {{"--rewards", "exponential"}, {"--mode", "per-pull"}, {"--preset", "authors-code"}},
        {{"--rewards", "student-t"}, {"--nu", "4"}, {"--mode", "per-pull"}}}) {
    const auto args = temp_.expand(run_on_file(flags));
    SCOPED_TRACE(joined(args));
    expect_success_with_table(run_cli(args));
  }
}

// A FIFO's open waits for a writer for ever: as the means file or the
// experiment file it is refused by name at once (a hung program would meet
// the cap, which no refusal comes near).
TEST_F(CliErrorsControl, AFifoIsRefusedAsAMeansOrExperimentFileNotWaitedOn) {
  const auto fifo = temp_.dir() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  for (const auto& args : {run_args({{"--means", fifo.string()}}),
                           std::vector<std::string>{"validate", fifo.string()}}) {
    SCOPED_TRACE(joined(args));
    auto process = spawn_cli(args);
    while (process->running() && process->elapsed() < std::chrono::seconds(60)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const auto r = process->wait();  // a hung one is killed by ~Spawned
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("' is a FIFO (named pipe), not a regular file"), std::string::npos)
        << r.err;
  }
}

// A UTF-8 byte-order mark (Excel's "CSV UTF-8" writes one) is not part of
// the means: the run is the one without it, bit for bit.
TEST_F(CliErrorsControl, AMeansFileWithAByteOrderMarkIsReadAsWithout) {
  const std::string means = "0.9,0.1,0.5\n0.2,0.8,0.5\n";
  ASSERT_NO_FATAL_FAILURE(temp_.write("means.csv", means));
  ASSERT_NO_FATAL_FAILURE(temp_.write("bom.csv", "\xEF\xBB\xBF" + means));
  const auto plain = run_cli(temp_.expand(run_args({{"--means", "{dir}/means.csv"}}, {"--json"})));
  const auto marked = run_cli(temp_.expand(run_args({{"--means", "{dir}/bom.csv"}}, {"--json"})));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(marked.exit_code, 0) << marked.err;
  EXPECT_EQ(printed_digest(marked), printed_digest(plain));
}

TEST_F(CliErrorsControl, ValidTemporaryFileWithCommentsBlanksAndCrlfSucceeds) {
  // The fixture's files are read as intended: comments, blank lines, spaces
  // around values, a leading '+' and CRLF endings are all fine, and Bernoulli means at 0
  // and 1 are inside [0, 1].
  ASSERT_NO_FATAL_FAILURE(temp_.write(
      "means.csv", "# two clients, three arms\r\n\r\n 0, +0.5 ,1\r\n# middle\n1,0.25,0\n\n"));
  const auto args = temp_.expand(run_on_file({{"--rewards", "bernoulli"}}));
  SCOPED_TRACE(joined(args));
  expect_success_with_table(run_cli(args));
}

}  // namespace
}  // namespace pfmab::testing
