// Sweeps a researcher can read (issue 15), through the real program: the
// study of results/study/experiment.toml at reduced size prints every key
// that varies (C and the instance among them) in the table, both JSON
// objects and the CSV export; the export has every field of the summary and
// names the instance as it does; keys with no effect make no duplicate cells
// and validate says so; zip and [[sweep]] blocks expand as
// docs/experiment.md says; an output grows to more replications with the
// digest of a run of that size from scratch; every sweeping flag takes a
// list.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pfmab/io/parameters.hpp"
#include "pfmab/io/results_file.hpp"

#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace pfmab::testing {
namespace {

// The study (results/study/experiment.toml) at reduced size: the same four
// algorithms x five alphas x four costs on MovieLens and a second, smaller
// game, at T = 2000 with 3 replications.
std::string study_toml() {
  return "seed = 2026\n"
         "replications = 3\n"
         "horizon = 2000\n"
         "alpha = [0, 0.2, 0.5, 0.9, 1]\n"
         "comm_cost = [0, 1, 10, 100]\n"
         "[instance]\n"
         "means = [\"" +
         shared_data("movielens_10x40.csv") + "\", \"" + shared_data("synthetic_4x9.csv") +
         "\"]\n"
         "[algorithm]\n"
         "name = [\"pf-ucb\", \"pf-ucb-enhanced\", \"local-ucb\", \"centralized-ucb\"]\n";
}

// (2 PF-UCB algorithms x 5 alphas x 4 costs + 2 baselines x 5 alphas) x 2
// instances: the baselines, which never pay for communication, are not
// crossed with the 4 costs.
constexpr std::size_t kStudyCells = (2 * 5 * 4 + 2 * 5) * 2;

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> split(const std::string& line, char by) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(line);
  while (std::getline(in, part, by)) out.push_back(part);
  return out;
}

class Study : public ::testing::Test {
 protected:
  void SetUp() override { dir_.write("study.toml", study_toml()); }
  std::string file() const { return (dir_ / "study.toml").string(); }
  TempDir dir_{"sweep"};
};

TEST_F(Study, AKeyWithNoEffectMakesNoDuplicateCellsAndValidateSaysSo) {
  const auto r = run_cli({"validate", file()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(std::to_string(kStudyCells) + " cells x 3 replications"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("note: comm_cost has no effect on local-ucb, centralized-ucb (it never pays "
                       "for communication): not crossed with them"),
            std::string::npos)
      << r.out;
  // 2 baselines x 5 alphas x 2 instances x (4 - 1) costs
  EXPECT_NE(r.out.find("note: 60 combinations of the sweep repeat a cell made before"),
            std::string::npos)
      << r.out;
}

TEST_F(Study, EverySummaryShowsEveryVariedKeyIncludingCAndTheInstance) {
  const auto output = dir_ / "study.h5";
  const auto run = run_cli({"run", file(), "-o", output.string(), "--json", "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto summary = run_cli({"summary", output.string(), "--json"});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  const std::vector<std::string> varied{"instance", "algorithm", "alpha", "comm_cost", "mode"};
  for (const auto* printed : {&run, &summary}) {
    const auto json = nlohmann::json::parse(printed->out);
    EXPECT_EQ(json["varied"], varied);
    ASSERT_EQ(json["cells"].size(), kStudyCells);
    std::set<std::string> identities;  // no two cells alike
    for (const auto& cell : json["cells"]) {
      const auto& keys = cell["keys"];
      const bool baseline =
          cell["algorithm"] == "local-ucb" || cell["algorithm"] == "centralized-ucb";
      EXPECT_EQ(keys["comm_cost"].is_null(), baseline) << cell.dump();
      identities.insert(keys["instance"].get<std::string>() + keys["algorithm"].dump() +
                        keys["alpha"].dump() + keys["comm_cost"].dump());
    }
    EXPECT_EQ(identities.size(), kStudyCells);
  }

  // the table: the varied keys as columns, the constant ones above it
  const auto table = run_cli({"summary", output.string()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const auto lines = split(table.out, '\n');
  ASSERT_GE(lines.size(), kStudyCells + 2);
  EXPECT_EQ(lines[0].rfind("T 2000", std::string::npos) != std::string::npos, true) << lines[0];
  EXPECT_EQ(lines[1].rfind("instance         M   K   algorithm        alpha  C    mode", 0), 0u)
      << lines[1];
  EXPECT_NE(table.out.find("movielens_10x40  10  40  pf-ucb           0.2    10   aggregated"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("synthetic_4x9    4   9   local-ucb        0.5    -    per-pull"),
            std::string::npos)
      << table.out;

  // the export: one row per cell, every key a column
  const auto csv = run_cli({"export", output.string(), "--csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const auto rows = split(csv.out, '\n');
  ASSERT_EQ(rows.size(), kStudyCells + 1);
  const auto header = split(rows[0], ',');
  for (const std::string column :
       {"instance", "algorithm", "alpha", "horizon", "comm_cost", "mode", "regret_mean"}) {
    EXPECT_NE(std::find(header.begin(), header.end(), column), header.end()) << column;
  }
  const auto at = [&](const std::string& column) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), column) -
                                    header.begin());
  };
  std::set<std::string> seen;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto fields = split(rows[i] + ",", ',');  // a trailing empty field kept
    seen.insert(fields[at("instance")] + fields[at("algorithm")] + fields[at("alpha")] +
                fields[at("comm_cost")]);
  }
  EXPECT_EQ(seen.size(), kStudyCells);
  // --long: a row per cell and checkpoint
  const auto long_csv = run_cli({"export", output.string(), "--long"});
  ASSERT_EQ(long_csv.exit_code, 0) << long_csv.err;
  EXPECT_GT(split(long_csv.out, '\n').size(), 40 * kStudyCells);
}

// The fields of a CSV line, quoted ones unquoted.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// A summary cell's fields as `pfmab export` names its columns: nested ones
// joined by "_", an interval's ends as _low and _high, the keys by their
// names and the formula f(p) as schedule_formula (docs/outputs.md).
void flatten(const std::string& prefix, const nlohmann::json& value,
             std::map<std::string, nlohmann::json>& out) {
  if (value.is_object()) {
    for (const auto& [name, inner] : value.items()) flatten(prefix + "_" + name, inner, out);
  } else if (prefix.ends_with("ci95")) {
    out[prefix + "_low"] = value[0];
    out[prefix + "_high"] = value[1];
  } else {
    out[prefix] = value;
  }
}

// Two means files of one name in two folders, and the synthetic game; a
// baseline beside PF-UCB (its Theorem 2 is n/a, with a note).
TEST(Export, HasEveryFieldOfTheSummaryAndNamesTheInstanceAsTheSummaryDoes) {
  TempDir dir("export");
  std::filesystem::create_directories(dir / "a");
  std::filesystem::create_directories(dir / "b");
  dir.write("a/game.csv", "0.9,0.5,0.3\n0.2,0.8,0.4\n");
  dir.write("b/game.csv", "0.7,0.6,0.2\n0.1,0.5,0.65\n");
  dir.write("exp.toml", "seed = 5\nreplications = 3\nhorizon = 500\nalpha = 0.5\n"
                        "[instance]\nmeans = [\"a/game.csv\", \"b/game.csv\", \"" +
                            shared_data("synthetic_4x9.csv") +
                            "\"]\n[algorithm]\nname = [\"pf-ucb\", \"local-ucb\"]\n");
  const auto output = (dir / "out.h5").string();
  ASSERT_EQ(run_cli({"run", (dir / "exp.toml").string(), "-o", output, "-q"}).exit_code, 0);
  const auto summary = run_cli({"summary", output, "--json"});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  const auto cells = nlohmann::json::parse(summary.out)["cells"];
  const auto exported = run_cli({"export", output, "--csv"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const auto lines = split(exported.out, '\n');
  ASSERT_EQ(lines.size(), cells.size() + 1);
  const auto header = csv_fields(lines[0]);
  EXPECT_EQ(std::set<std::string>(header.begin(), header.end()).size(), header.size());

  std::size_t compared = 0;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    std::map<std::string, nlohmann::json> fields;
    for (const auto& [name, value] : cells[c].items()) {
      if (name == "keys") continue;
      if (name == "schedule") {
        fields["schedule_formula"] = value;
      } else if (!cells[c]["keys"].contains(name)) {
        flatten(name, value, fields);
      }
    }
    for (const auto& [key, value] : cells[c]["keys"].items()) fields[key] = value;
    const auto row = csv_fields(lines[c + 1]);
    ASSERT_EQ(row.size(), header.size()) << lines[c + 1];
    for (const auto& [name, value] : fields) {
      const auto at = std::find(header.begin(), header.end(), name);
      ASSERT_NE(at, header.end()) << "summary --json's " << name << " is not exported";
      const auto& text = row[static_cast<std::size_t>(at - header.begin())];
      if (value.is_null()) {
        EXPECT_EQ(text, "") << name;
      } else if (value.is_string()) {
        EXPECT_EQ(text, value.get<std::string>()) << name;
      } else {
        EXPECT_EQ(std::stod(text), value.get<double>()) << name;  // the shortest exact text
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, cells.size() * 40);
  for (const std::string column : {"bounds_c_star_log_T", "regret_over_c_star_log_T_mean",
                                   "regret_over_c_star_log_T_ci95_low",
                                   "regret_over_c_star_log_T_ci95_high"}) {
    EXPECT_NE(std::find(header.begin(), header.end(), column), header.end()) << column;
  }

  // the instance: its file's name, the path as given where two share it,
  // alike in summary --json, the export and the table
  std::vector<std::string> named;
  for (const auto& cell : cells) named.push_back(cell["keys"]["instance"].get<std::string>());
  EXPECT_EQ(named, (std::vector<std::string>{"a/game.csv", "a/game.csv", "b/game.csv",
                                             "b/game.csv", "synthetic_4x9", "synthetic_4x9"}));
  const auto table = run_cli({"summary", output});
  for (const auto& name : named) {
    EXPECT_NE(table.out.find("\n" + name + " "), std::string::npos) << table.out;
  }
  const auto long_form = run_cli({"export", output, "--long"});
  ASSERT_EQ(long_form.exit_code, 0) << long_form.err;
  const auto long_lines = split(long_form.out, '\n');
  const auto long_header = csv_fields(long_lines[0]);
  const auto instance = static_cast<std::size_t>(
      std::find(long_header.begin(), long_header.end(), "instance") - long_header.begin());
  ASSERT_LT(instance, long_header.size());
  EXPECT_EQ(csv_fields(long_lines[1])[instance], "a/game.csv");
  EXPECT_EQ(csv_fields(long_lines.back())[instance], "synthetic_4x9");
}

// A sweep of keys given as a zip and as blocks, read back cell by cell.
TEST(Sweep, ZipAndBlocksExpandAsDocumented) {
  TempDir dir("sweep");
  dir.write("exp.toml",
            "replications = 2\n"
            "alpha = [0, 1]\n"
            "horizon = [1000, 2000, 3000]\n"
            "comm_cost = [0, 5, 7]\n"
            "zip = [\"horizon\", \"comm_cost\"]\n"
            "[instance]\n"
            "means = [[1, 0], [0, 1]]\n"
            "[[sweep]]\n"
            "algorithm.name = \"pf-ucb\"\n"
            "[[sweep]]\n"
            "algorithm.name = \"local-ucb\"\n"
            "replications = 5\n"
            "horizon = [500, 600]\n"
            "zip = [\"alpha\", \"horizon\"]\n");
  const auto r = run_cli({"run", (dir / "exp.toml").string(), "--json", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto cells = nlohmann::json::parse(r.out)["cells"];
  // block 1: alpha outermost, then (T, C) paired: 2 x 3 cells; block 2:
  // alpha paired with T, C ignored by local-ucb: 2
  struct Expected {
    std::string algorithm;
    double alpha;
    std::uint64_t horizon;
    nlohmann::json comm_cost;
    std::uint64_t replications;
  };
  const std::vector<Expected> expected{
      {"pf-ucb", 0, 1000, 0.0, 2},       {"pf-ucb", 0, 2000, 5.0, 2},
      {"pf-ucb", 0, 3000, 7.0, 2},       {"pf-ucb", 1, 1000, 0.0, 2},
      {"pf-ucb", 1, 2000, 5.0, 2},       {"pf-ucb", 1, 3000, 7.0, 2},
      {"local-ucb", 0, 500, nullptr, 5}, {"local-ucb", 1, 600, nullptr, 5}};
  ASSERT_EQ(cells.size(), expected.size()) << r.out;
  for (std::size_t c = 0; c < expected.size(); ++c) {
    SCOPED_TRACE("cell " + std::to_string(c));
    const auto& keys = cells[c]["keys"];
    EXPECT_EQ(keys["algorithm"], expected[c].algorithm);
    EXPECT_EQ(keys["alpha"], expected[c].alpha);
    EXPECT_EQ(keys["horizon"], expected[c].horizon);
    EXPECT_EQ(keys["comm_cost"], expected[c].comm_cost);
    EXPECT_EQ(cells[c]["replications"], expected[c].replications);
  }

  // zipped lists of two lengths are refused where the zip is given
  dir.write("bad.toml",
            "horizon = [1000, 2000]\ncomm_cost = [0, 1, 2]\n"
            "zip = [\"horizon\", \"comm_cost\"]\n"
            "[instance]\nmeans = [[1, 0], [0, 1]]\n");
  const auto bad = run_cli({"validate", (dir / "bad.toml").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.toml:3:7: key 'zip': it pairs horizon (2 values) with comm_cost (3 "
                         "values)"),
            std::string::npos)
      << bad.err;
}

// validate's notes speak of what the user gave: the preset, given, is reset
// for pf-alloc and said so; c_B, derived from it and never given, is not.
TEST(Sweep, NotesSpeakOnlyOfValuesTheUserGave) {
  const auto r = run_cli({"validate", "--means-inline", "0.9,0.1;0.2,0.8", "--algorithm",
                          "pf-ucb,pf-alloc", "--preset", "authors-code"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("note: preset has no effect on pf-alloc"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("confidence_constant"), std::string::npos) << r.out;
  // given, it is said
  const auto given = run_cli({"validate", "--means-inline", "0.9,0.1;0.2,0.8", "--algorithm",
                              "pf-ucb,pf-alloc", "--confidence-constant", "2"});
  ASSERT_EQ(given.exit_code, 0) << given.err;
  EXPECT_NE(given.out.find("note: confidence_constant has no effect on pf-alloc"),
            std::string::npos)
      << given.out;
}

// A list of one matrix is that matrix: the same cells, the same digest
// (docs/experiment.md); [[[1]]] is so a game of one client and one arm.
TEST(Sweep, AListOfOneMatrixIsThatMatrix) {
  TempDir dir("sweep");
  const std::string top = "replications = 3\nhorizon = 1000\nalpha = 0.5\n[instance]\n";
  dir.write("matrix.toml", top + "means = [[0.9, 0.1], [0.2, 0.8]]\n");
  dir.write("list.toml", top + "means = [[[0.9, 0.1], [0.2, 0.8]]]\n");
  dir.write("one.toml", top + "means = [[[1]]]\n");
  const auto matrix = run_cli({"run", (dir / "matrix.toml").string(), "--json", "-q"});
  const auto list = run_cli({"run", (dir / "list.toml").string(), "--json", "-q"});
  const auto one = run_cli({"run", (dir / "one.toml").string(), "--json", "-q"});
  ASSERT_EQ(matrix.exit_code, 0) << matrix.err;
  ASSERT_EQ(list.exit_code, 0) << list.err;
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(printed_digest(list), printed_digest(matrix));
  const auto cell = nlohmann::json::parse(one.out)["cells"][0];
  EXPECT_EQ(cell["clients"], 1);
  EXPECT_EQ(cell["arms"], 1);
}

// A key constant over the cells it has an effect on is said once above the
// table, also when the first cell has no use for it.
TEST(Sweep, AConstantKeyIsShownAboveTheTableFromACellItAppliesTo) {
  const auto r = run_cli({"run", "--means-inline", "1,0;0,0.75", "--algorithm", "local-ucb,pf-ucb",
                          "--alpha", "0.5", "-C", "5", "-T", "1000", "-R", "2", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto first = r.out.substr(0, r.out.find('\n'));
  EXPECT_NE(first.find("C 5"), std::string::npos) << r.out;
  EXPECT_NE(first.find("alpha 0.5"), std::string::npos) << r.out;
  EXPECT_EQ(first.find("algorithm"), std::string::npos) << r.out;  // it varies: a column
}

// Growing: the same experiment with more replications extends the output;
// its first rows stay bit for bit, its digest is that of the larger run
// from scratch; fewer replications are refused, the file untouched.
TEST(Sweep, AnOutputGrowsToTheDigestOfARunOfThatSizeFromScratch) {
  TempDir dir("sweep");
  const auto output = dir / "grown.h5";
  const std::vector<std::string> experiment{"--means",     shared_data("synthetic_4x9.csv"),
                                            "--alpha",     "0.5,1",
                                            "-T",          "1e4",
                                            "--algorithm", "pf-ucb,local-ucb",
                                            "-q",          "--json"};
  const auto with = [&](const std::string& replications) {
    auto args = experiment;
    args.insert(args.end(), {"-R", replications});
    return args;
  };
  const auto small = run_cli(run_to(with("30"), output));
  ASSERT_EQ(small.exit_code, 0) << small.err;
  const auto first_rows = [&] {
    const io::ResultsReader file(output);
    std::vector<io::RowBlock> blocks;
    for (std::size_t c = 0; c < file.cells().size(); ++c) blocks.push_back(file.rows(c, 0, 30));
    return blocks;
  }();

  const auto grown = run_cli(run_to(with("70"), output));
  ASSERT_EQ(grown.exit_code, 0) << grown.err;
  auto fresh_args = with("70");
  fresh_args.insert(fresh_args.begin(), "run");
  const auto fresh = run_cli(fresh_args);
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  EXPECT_EQ(printed_digest(grown), printed_digest(fresh));
  EXPECT_NE(printed_digest(grown), printed_digest(small));
  {
    const io::ResultsReader file(output);
    for (std::size_t c = 0; c < file.cells().size(); ++c) {
      EXPECT_EQ(file.cells()[c].done, 70u);
      EXPECT_EQ(file.cells()[c].requested, 70u);
      EXPECT_TRUE(file.rows(c, 0, 30).values == first_rows[c].values) << "cell " << c;
    }
  }

  const auto before = slurp(output);
  const auto fewer = run_cli(run_to(with("50"), output));
  EXPECT_EQ(fewer.exit_code, 2);
  EXPECT_NE(fewer.err.find("holds 70 replications of cell 0, more than the 50 asked"),
            std::string::npos)
      << fewer.err;
  EXPECT_EQ(slurp(output), before) << "the refused run changed the file";
}

// Every flag of a key that sweeps takes a comma list (each value a cell), in
// one message style where a value is wrong; a key that does not sweep says
// it takes one value.
TEST(Sweep, EverySweepingFlagTakesAListAndTheOthersSaySoInOneStyle) {
  const std::vector<std::string> base{"validate", "--means-inline", "1,0;0,0.75"};
  // two values that make two cells where the default is not a list
  const std::map<std::string, std::string> lists{
      {"instance.rewards", "gaussian,bernoulli"},
      {"instance.sigma", "1,2"},
      {"instance.nu", "3,4"},
      {"algorithm.name", "pf-ucb,pf-ucb-enhanced"},
      {"algorithm.preset", "paper,authors-code"},
      {"alpha", "0,1"},
      {"algorithm.alpha", "0.2,0.8"},
      {"horizon", "1e4,1e5"},
      {"comm_cost", "0,10"},
      {"algorithm.schedule", "doubling-log,doubling"},
      {"algorithm.lambda", "1,2"},
      {"algorithm.schedule_factor", "1,2"},
      {"algorithm.confidence_constant", "1,4"},
      {"algorithm.log_term", "T,MT"},
      {"algorithm.lengths", "paper,large-m"},
      {"participation.probability", "0.5,1"},
      {"participation.clients", "1,2"},
      {"mode", "aggregated,per-pull"},
      {"algorithm.margin", "0.1,0.2"},
  };
  for (const auto& parameter : io::parameters()) {
    if (parameter.flags.empty() || parameter.type == io::ValueType::means) continue;
    const std::string key(parameter.key);
    const std::string flag(parameter.flags.substr(0, parameter.flags.find(',')));
    SCOPED_TRACE(key);
    auto args = base;
    if (key != "alpha") args.insert(args.end(), {"--alpha", "0.5"});
    if (!parameter.sweeps) {
      args.insert(args.end(), {flag, "1,2"});
      const auto r = run_cli(args);
      EXPECT_EQ(r.exit_code, 2);
      EXPECT_NE(r.err.find(flag + " (key '" + key + "'): takes one value, not a list (got '1,2')"),
                std::string::npos)
          << r.err;
      continue;
    }
    if (key == "participation.aggregate") args.insert(args.end(), {"--participation", "0.5"});
    if (key == "algorithm.pulls_per_arm")
      args.insert(args.end(), {"--algorithm", "explore-then-commit"});
    if (key == "algorithm.margin" || key == "algorithm.initial_pulls")
      args.insert(args.end(), {"--algorithm", "pf-alloc"});
    if (key == "instance.nu") {
      args.insert(args.end(), {"--rewards", "student-t", "--mode", "per-pull"});
    }
    const auto list = lists.count(key)                   ? lists.at(key)
                      : key == "participation.aggregate" ? std::string("latest,participants")
                                                         : std::string("10,20");
    args.insert(args.end(), {flag, list});
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("valid: 2 cells"), std::string::npos) << r.out;
    // a wrong value in the list: the flag, the key, the value
    auto wrong = args;
    wrong.back() = list + ",x";
    const auto refused = run_cli(wrong);
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_EQ(refused.err.rfind("pfmab: error: " + flag + " (key '" + key + "'): ", 0), 0u)
        << refused.err;
  }
}

}  // namespace
}  // namespace pfmab::testing
