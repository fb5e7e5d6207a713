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
// The cases are a table (BadExperiment); three parameterised tests check each
// one. The fixture writes the case's lines to a fresh temporary directory as
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

#include "printable.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace pfmab::testing {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------
// The table

struct BadExperiment {
  std::string name;                   // test name suffix: [A-Za-z0-9_]
  std::vector<std::string> lines;     // exp.toml: lines[n - 1] is line n
  int line;                           // the line the message points at; 0: none (file only)
  std::string key;                    // the key the message names, in quotes; "": none
  std::vector<std::string> expected;  // further words of the message
  std::vector<std::pair<std::string, std::string>> files{};  // relative path, text
};

// Just the name: CTest's test names end in "# GetParam() = <this>".
void PrintTo(const BadExperiment& c, std::ostream* os) { *os << c.name; }

// The top of most cases: lines 1-5, a tiny valid experiment.
//   1 horizon = 50
//   2 replications = 1
//   3 alpha = 0.5
//   4 [instance]
//   5 means = [[0.1, 0.2], [0.3, 0.4]]
std::vector<std::string> small(std::vector<std::string> more = {}) {
  std::vector<std::string> lines{"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]",
                                 "means = [[0.1, 0.2], [0.3, 0.4]]"};
  lines.insert(lines.end(), more.begin(), more.end());
  return lines;
}

// `part` `n` times, joined by `separator`: inputs of hostile size.
std::string repeated(const std::string& part, std::size_t n, const std::string& separator = "") {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += (i ? separator : "") + part;
  return out;
}

const std::string top_keys =
    "name, description, instance, algorithm, alpha, horizon, comm_cost, participation, seed, "
    "replications, mode, checkpoints, zip, sweep";

std::vector<BadExperiment> bad_experiments() {
  return {
      // --- TOML syntax ---------------------------------------------------------
      {"syntax_unterminated_string",
       {"seed = 7", "name = \"unfinished", "horizon = 50", "replications = 1", "alpha = 0.5",
        "[instance]", "means = [[0.1, 0.2], [0.3, 0.4]]"},
       2,
       "name",
       {"string"}},
      {"syntax_missing_equals",
       {"seed 7", "horizon = 50", "replications = 1", "alpha = 0.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       1,
       "seed",
       {"expected '='"}},
      {"syntax_duplicate_key",
       small({"[algorithm]", "lambda = 2.0", "lambda = 3.0"}),
       8,
       "lambda",
       {"redefine"}},
      {"syntax_duplicate_table",
       small({"[instance]", "rewards = \"gaussian\""}),
       6,
       "instance",
       {"redefine"}},

      // --- unknown keys and tables, tables of the wrong type -------------------
      {"unknown_top_level_key",
       {"horizon = 50", "replications = 1", "iterations = 10", "alpha = 0.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       3,
       "iterations",
       {"unknown key", top_keys}},
      {"unknown_key_in_instance",
       small({"noise = 0.5"}),
       6,
       "instance.noise",
       {"unknown key", "means, rewards, sigma"}},
      {"unknown_key_in_algorithm",
       small({"[algorithm]", "schedule = \"doubling\"", "gamma = 2"}),
       8,
       "algorithm.gamma",
       {"unknown key",
        "name, preset, alpha, schedule, lambda, schedule_factor, confidence_constant, log_term, "
        "lengths"}},
      {"unknown_key_in_checkpoints",
       small({"[checkpoints]", "log_point = 10"}),
       7,
       "checkpoints.log_point",
       {"unknown key", "log_points, linear_points"}},
      {"unknown_table",
       small({"[output]", "file = \"out.h5\""}),
       6,
       "output",
       {"unknown key", top_keys}},
      {"instance_is_a_number",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "instance = 5"},
       4,
       "instance",
       {"expected a table", "got an integer"}},
      {"algorithm_is_a_string",
       {"algorithm = \"pf-ucb\"", "horizon = 50", "replications = 1", "alpha = 0.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       1,
       "algorithm",
       {"expected a table", "got a string"}},

      // --- wrong types -----------------------------------------------------------
      {"alpha_is_a_string",
       {"horizon = 50", "replications = 1", "alpha = \"high\"", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       3,
       "alpha",
       {"expected a number", "got a string"}},
      {"alpha_list_holds_a_string",
       {"horizon = 50", "replications = 1", "alpha = [0.1, \"x\"]", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       3,
       "alpha",
       {"expected a number", "got a string"}},
      {"replications_is_a_string",
       {"horizon = 50", "replications = \"3\"", "alpha = 0.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       2,
       "replications",
       {"expected a number", "got a string"}},
      {"rewards_is_a_number",
       small({"rewards = 1"}),
       6,
       "instance.rewards",
       {"expected a string", "got an integer"}},
      {"alpha_empty_list",
       {"horizon = 50", "replications = 1", "alpha = []", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       3,
       "alpha",
       {"list is empty"}},

      // --- values out of range ---------------------------------------------------
      {"alpha_above_one",
       {"horizon = 50", "replications = 1", "alpha = 1.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       3,
       "alpha",
       {"1.5", "outside [0, 1]"}},
      {"alpha_below_zero",
       {"horizon = 50", "replications = 1", "alpha = -0.1", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       3,
       "alpha",
       {"-0.1", "outside [0, 1]"}},
      {"alpha_sweep_element_out_of_range",
       {"horizon = 50", "replications = 1", "alpha = [", "  0.2,", "  1.25,", "]", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       5,
       "alpha",
       {"1.25", "outside [0, 1]"}},
      {"horizon_zero",
       {"horizon = 0", "replications = 1", "alpha = 0.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       1,
       "horizon",
       {"at least 1"}},
      {"horizon_not_whole",
       {"horizon = 1.5", "replications = 1", "alpha = 0.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       1,
       "horizon",
       {"1.5", "not a whole number"}},
      {"replications_zero",
       {"horizon = 50", "replications = 0", "alpha = 0.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       2,
       "replications",
       {"at least 1", "got 0"}},
      {"replications_negative",
       {"horizon = 50", "replications = -3", "alpha = 0.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       2,
       "replications",
       {"-3", "not a whole number"}},
      {"seed_negative",
       {"seed = -1", "horizon = 50", "replications = 1", "alpha = 0.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       1,
       "seed",
       {"-1", "not a whole number"}},
      {"sigma_negative",
       small({"sigma = -1.0"}),
       6,
       "instance.sigma",
       {"sigma = -1", "outside [0, 1e+09]"}},
      {"comm_cost_negative",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "comm_cost = -2", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       4,
       "comm_cost",
       {"C = -2", "outside [0, 1e+09]"}},
      {"lambda_zero_with_constant_schedule",
       small({"[algorithm]", "schedule = \"constant\"", "lambda = 0"}),
       8,
       "algorithm.lambda",
       {"lambda = 0", "outside [1e-09,"}},
      {"schedule_factor_zero",
       small({"[algorithm]", "schedule_factor = 0"}),
       7,
       "algorithm.schedule_factor",
       {"factor = 0", "outside [1e-09,"}},
      {"confidence_constant_zero",
       small({"[algorithm]", "confidence_constant = 0.0"}),
       7,
       "algorithm.confidence_constant",
       {"c_B = 0", "outside (0, 1e+12]", "needs c_B > 0"}},
      // Issue 13's numeric reproducers: each refused where it is written,
      // with the range it broke, before anything runs.
      {"integer_alpha_above_2_53",  // once read through an empty optional
       {"horizon = 50", "replications = 1", "alpha = 9007199254740993", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       3,
       "alpha",
       {"alpha = 9007199254740992", "outside [0, 1]"}},
      {"integer_replications_above_2_62",
       {"horizon = 50", "replications = 4611686018427387905", "alpha = 0.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       2,
       "replications",
       {"at most 4611686018427387904", "4611686018427387905"}},
      {"lambda_overflowing_phase_lengths",
       small({"[algorithm]", "schedule = \"constant\"", "lambda = 1e300"}),
       8,
       "algorithm.lambda",
       {"lambda = 1e+300", "2^62 (the longest horizon)"}},
      {"sigma_overflowing_reward_sums",
       small({"sigma = 1e308"}),
       6,
       "instance.sigma",
       {"sigma = 1e+308", "overflows sums of 2^62 rewards"}},
      {"comm_cost_overflowing_regret",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "comm_cost = 1.7e308", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       4,
       "comm_cost",
       {"C = 1.7e+308", "overflows the regret"}},
      {"mean_overflowing_regret",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]",
        "means = [[1e308, 0.2], [0.3, 0.4]]"},
       5,
       "instance.means",
       {"mean = 1e+308", "rescale them"}},
      {"log_points_too_large",
       small({"[checkpoints]", "log_points = 100001"}),
       7,
       "checkpoints.log_points",
       {"at most 100000", "100001"}},

      // --- unknown names -----------------------------------------------------------
      {"unknown_schedule",
       small({"[algorithm]", "schedule = \"weekly\""}),
       7,
       "algorithm.schedule",
       {"unknown schedule", "'weekly'", "doubling-log"}},
      {"unknown_rewards",
       small({"rewards = \"poisson\""}),
       6,
       "instance.rewards",
       {"unknown reward family", "'poisson'", "gaussian", "bernoulli"}},
      {"unknown_algorithm",
       small({"[algorithm]", "name = \"ucb1\""}),
       7,
       "algorithm.name",
       {"unknown algorithm", "'ucb1'", "pf-ucb", "pf-ucb-enhanced", "local-ucb",
        "centralized-ucb"}},
      {"unknown_preset",
       small({"[algorithm]", "preset = \"authors\""}),
       7,
       "algorithm.preset",
       {"unknown preset", "'authors'", "paper", "authors-code"}},
      {"unknown_lengths",
       small({"[algorithm]", "lengths = \"small\""}),
       7,
       "algorithm.lengths",
       {"unknown exploration lengths", "'small'", "large-m"}},
      {"algorithm_alpha_out_of_range",
       small({"[algorithm]", "alpha = [0.5, -0.1]"}),
       7,
       "algorithm.alpha",
       {"-0.1", "outside [0, 1]"}},
      {"participation_probability_zero",
       small({"[participation]", "probability = 0"}),
       7,
       "participation.probability",
       {"q = 0", "(0, 1]"}},
      {"participation_probability_above_one",
       small({"[participation]", "probability = [0.5, 1.5]"}),
       7,
       "participation.probability",
       {"q = 1.5", "(0, 1]"}},
      {"participation_clients_zero",
       small({"[participation]", "clients = 0"}),
       7,
       "participation.clients",
       {"at least 1"}},
      {"participation_both_probability_and_clients",
       small({"[participation]", "probability = 0.5", "clients = 1"}),
       8,
       "participation.clients",
       {"probability q or a number of clients S, not both"}},
      {"participation_wrong_type",
       {"participation = 0.5", "horizon = 50", "replications = 1", "alpha = 0.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       1,
       "participation",
       {"expected a table", "got a number"}},
      {"unknown_log_term",
       small({"[algorithm]", "log_term = \"X\""}),
       7,
       "algorithm.log_term",
       {"'X'", "MT"}},
      {"mode_unknown",
       {"mode = \"exact\"", "horizon = 50", "replications = 1", "alpha = 0.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       1,
       "mode",
       {"unknown mode 'exact'", "aggregated", "per-pull"}},

      // --- means files (relative to exp.toml) -----------------------------------------
      {"means_csv_missing",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]",
        "means = \"data/missing.csv\""},
       5,
       "instance.means",
       {"'{dir}/data/missing.csv'", "does not exist"},
       {{"data/present.csv", "0.1,0.2\n0.3,0.4\n"}}},
      {"means_csv_second_of_list_missing",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]", "means = [",
        "  \"data/present.csv\",", "  \"data/absent.csv\",", "]"},
       7,
       "instance.means",
       {"'{dir}/data/absent.csv'", "does not exist"},
       {{"data/present.csv", "0.1,0.2\n0.3,0.4\n"}}},
      {"means_csv_ragged_row",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]",
        "means = \"data/means.csv\""},
       5,
       "instance.means",
       {"{dir}/data/means.csv:3:", "has 2 values", "{dir}/data/means.csv:1", "has 3"},
       {{"data/means.csv", "0.1,0.2,0.3\n# second client\n0.4,0.5\n"}}},
      {"bernoulli_csv_mean_above_one",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]", "means = \"means.csv\"",
        "rewards = \"bernoulli\""},
       5,
       "instance.means",
       {"{dir}/means.csv:4:", "column 2", "1.5", "outside [0, 1]"},
       {{"means.csv", "# Bernoulli means\n0.1,0.2\n\n0.4,1.5\n"}}},

      // --- inline matrices ---------------------------------------------------------------
      {"inline_matrix_ragged_row",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]", "means = [",
        "  [0.1, 0.2, 0.3],", "  [0.4, 0.5],", "]"},
       7,
       "instance.means",
       {"row 2 has 2 values", "row 1 has 3"}},
      {"inline_matrix_string_value",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]", "means = [",
        "  [0.1, 0.2],", "  [0.3, \"x\"],", "]"},
       7,
       "instance.means",
       {"expected a number", "got a string"}},
      {"bernoulli_inline_mean_above_one",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]", "rewards = \"bernoulli\"",
        "means = [", "  [0.1, 0.2],", "  [0.3, 1.5],", "]"},
       6,
       "instance.means",
       {"row 2", "column 2", "1.5", "outside [0, 1]"}},

      // --- hostile text: refused before toml++ recurses, quoted short and escaped ---------
      {"key_dotted_50000_deep",
       small({"[algorithm]", repeated("a", 50'000, ".") + " = 1"}),
       7,
       "",
       {"key 'algorithm.a.a.a.a.a", "...': nested more than 32 levels deep"}},
      {"table_header_50000_deep",
       small({"[" + repeated("a", 50'000, ".") + "]"}),
       6,
       "",
       {"key 'a.a.a.a.a", "...': nested more than 32 levels deep"}},
      {"lists_50000_deep",
       {"horizon = 50", "replications = 1",
        "alpha = " + std::string(50'000, '[') + "0.5" + std::string(50'000, ']'), "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       3,
       "alpha",
       {"nested more than 32 levels deep"}},
      {"inline_tables_50000_deep",
       small({"[algorithm]",
              "lambda = " + repeated("{ a = ", 50'000) + "1" + std::string(50'000, '}')}),
       7,
       "algorithm.a",
       {"nested more than 32 levels deep"}},
      {"string_of_10_megabytes",
       small({"[algorithm]", "preset = \"" + std::string(10'000'000, 'x') + "\""}),
       7,
       "algorithm.preset",
       {"a string longer than 64 KiB", "\"" + std::string(59, 'x') + "..."}},
      {"unknown_name_of_60000_characters",
       small({"[algorithm]", "preset = \"" + std::string(60'000, 'x') + "\""}),
       7,
       "algorithm.preset",
       {"unknown preset '" + std::string(60, 'x') + "...'"}},
      {"raw_control_bytes",
       {"name = \"a\x01\x1b[31mred\"", "horizon = 50", "replications = 1", "alpha = 0.5",
        "[instance]", "means = [[0.1, 0.2], [0.3, 0.4]]"},
       1,
       "name",
       {"TOML syntax error", "name = \"a\\x01\\x1b[31mred\""}},
      {"escaped_control_bytes_in_a_name",
       small({"rewards = \"gauss\\u0001\\u001b[2J\\u009b\""}),
       6,
       "instance.rewards",
       {"unknown reward family 'gauss\\x01\\x1b[2J\\u009b'"}},
      {"invalid_utf8",
       {"name = \"caf\xe9 \xff\"", "horizon = 50", "replications = 1", "alpha = 0.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       1,
       "name",
       {"invalid utf-8", "caf\\xe9 \\xff"}},
      {"newline_in_a_key", small({"\"ra\\nte\" = 1"}), 6, "instance.ra\\nte", {"unknown key"}},
      {"newline_in_a_path",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]", "means = \"da\\nta.csv\""},
       5,
       "instance.means",
       {"'{dir}/da\\nta.csv'", "does not exist"}},
      {"means_csv_nul_byte",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]", "means = \"means.csv\""},
       5,
       "instance.means",
       {"{dir}/means.csv:2:", "column 2", "'0\\x00.4' is not a number"},
       {{"means.csv", "0.1,0.2\n0.3,0" + std::string(1, '\0') + ".4\n"}}},
      {"means_csv_invalid_utf8",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]", "means = \"means.csv\""},
       5,
       "instance.means",
       {"{dir}/means.csv:1:", "column 2", "'\\xff\\xfe' is not a number"},
       {{"means.csv", "0.1,\xff\xfe\n0.3,0.4\n"}}},
      {"means_csv_line_of_a_megabyte",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]", "means = \"means.csv\""},
       5,
       "instance.means",
       {"{dir}/means.csv:2:", "column 2", "'" + std::string(60, 'z') + "...' is not a number"},
       {{"means.csv", "0.1,0.2\n0.3," + std::string(1'000'000, 'z') + "\n"}}},
      {"means_csv_1e999",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]", "means = \"means.csv\""},
       5,
       "instance.means",
       {"{dir}/means.csv:1:", "column 2", "1e999"},
       {{"means.csv", "0.1,1e999\n0.3,0.4\n"}}},

      // --- a missing key: there is no line to point at, only the file -----------------
      {"means_missing_no_instance_table",
       {"horizon = 50", "replications = 1", "alpha = 0.5"},
       0,
       "instance.means",
       {"is missing"}},
      {"means_missing_from_instance_table",
       {"horizon = 50", "replications = 1", "alpha = 0.5", "[instance]", "rewards = \"gaussian\""},
       4,
       "instance.means",
       {"is missing"}},

      // --- a cell-level error: each value is fine, their combination is not. The
      // message names the file and the cell (its alpha, horizon and schedule), not a
      // line or key.
      {"horizon_one_with_doubling_log",
       {"horizon = 1", "replications = 1", "alpha = 0.5", "[instance]",
        "means = [[0.1, 0.2], [0.3, 0.4]]"},
       0,
       "",
       {"cell 0", "horizon 1", "doubling-log", "at least 2"}},
      {"participation_clients_above_clients",
       small({"[participation]", "clients = 3"}),
       0,
       "",
       {"cell 0", "pf-ucb", "3 participating clients", "from 1 to M = 2"}},
      {"participation_with_a_baseline",
       small({"[algorithm]", "name = \"centralized-ucb\"", "[participation]", "clients = 1"}),
       0,
       "",
       {"participation_clients '1' has no effect on any cell", "centralized-ucb",
        "every client plays every slot"}},
  };
}

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

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
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
    std::string text;
    for (const auto& l : c.lines) text += replace_all(l, "{data}", PFMAB_SHARED_DATA) + "\n";
    ASSERT_NO_FATAL_FAILURE(write_file(experiment(), text));
    for (const auto& [name, content] : c.files) {
      ASSERT_NO_FATAL_FAILURE(write_file(temp_.dir() / name, content));
    }
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
                        "sigma = 0.0",
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
