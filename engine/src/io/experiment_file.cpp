#include "io/experiment_file.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/limits.hpp"
#include "pfmab/util/text_file.hpp"

#include "io/toml_limits.hpp"

namespace pfmab::io {
namespace {

std::string join(const std::vector<std::string_view>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + std::string(w);
  return out;
}

std::string type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "a list";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    default:
      return "a date or time";
  }
}

// An error already placed at its file, line and key: passed on as it is.
class PlacedError : public UserError {
 public:
  using UserError::UserError;
};

// Reads values out of the experiment file, reporting every problem at the
// node it comes from: "FILE:LINE:COL: key 'K': ...".
class Reader {
 public:
  Reader(std::string shown_file, std::filesystem::path base)
      : file_(std::move(shown_file)), base_(std::move(base)) {}

  std::string where(const toml::node& node) const {
    const auto& begin = node.source().begin;
    return fmt::format("{}:{}:{}", file_, begin.line, begin.column);
  }

  // How a message about `key` at `node` begins.
  std::string place(const toml::node& node, const std::string& key) const {
    return fmt::format("{}: key '{}'", where(node), excerpt(key));
  }

  [[noreturn]] void fail(const toml::node& node, const std::string& key,
                         const std::string& problem) const {
    throw PlacedError(fmt::format("{}: {}", place(node, key), problem));
  }

  // Runs `check`, prefixing any UserError it throws with the node's place.
  template <class F>
  auto at(const toml::node& node, const std::string& key, F&& check) const {
    try {
      return check();
    } catch (const PlacedError&) {
      throw;
    } catch (const UserError& e) {
      fail(node, key, e.what());
    }
  }

  // A scalar key's values: the list's elements, or the value itself.
  std::vector<const toml::node*> values(const toml::node& node, const std::string& key) const {
    std::vector<const toml::node*> out;
    if (const auto* list = node.as_array()) {
      if (list->empty()) fail(node, key, "the list is empty (give at least one value)");
      for (const auto& element : *list) out.push_back(&element);
    } else {
      out.push_back(&node);
    }
    return out;
  }

  // A real value: a TOML float, or an integer rounded to the nearest double
  // (toml++'s value<double>() refuses integers above 2^53; the range checks
  // that follow see the true magnitude either way).
  double number(const toml::node& node, const std::string& key) const {
    if (const auto* integer = node.as_integer()) return static_cast<double>(integer->get());
    if (const auto* real = node.as_floating_point()) return real->get();
    fail(node, key, "expected a number, got " + type_name(node));
  }

  // A whole number in [minimum, maximum]: a TOML integer, exactly, or a
  // float with no fraction (1e6 is fine) up to 2^62.
  std::uint64_t count(const toml::node& node, const std::string& key, std::uint64_t minimum,
                      std::uint64_t maximum = std::uint64_t{1} << 62) const {
    std::uint64_t whole = 0;
    if (const auto* integer = node.as_integer()) {
      if (integer->get() < 0) {
        fail(node, key, fmt::format("{} is not a whole number from 0 to 2^62", integer->get()));
      }
      whole = static_cast<std::uint64_t>(integer->get());
    } else {
      const double value = number(node, key);
      if (!(value >= 0.0 && value <= 0x1p62) || std::floor(value) != value) {
        fail(node, key, fmt::format("{} is not a whole number from 0 to 2^62", value));
      }
      whole = static_cast<std::uint64_t>(value);
    }
    if (whole < minimum)
      fail(node, key, fmt::format("must be at least {} (got {})", minimum, whole));
    if (whole > maximum)
      fail(node, key, fmt::format("must be at most {} (got {})", maximum, whole));
    return whole;
  }

  std::string string(const toml::node& node, const std::string& key) const {
    if (!node.is_string()) fail(node, key, "expected a string, got " + type_name(node));
    return *node.value<std::string>();
  }

  // The CSV file a string node names, relative to the experiment file.
  std::filesystem::path csv_path(const toml::node& node) const {
    const std::filesystem::path given = *node.value<std::string>();
    return given.is_absolute() ? given : base_ / given;
  }

  // The means a node stands for: one CSV path or one inline matrix.
  std::shared_ptr<const GivenMeans> means(const toml::node& node, const std::string& key) const {
    auto given = std::make_shared<GivenMeans>();
    given->given_at = place(node, key);
    if (node.is_string()) {
      given->file = csv_path(node);
      given->table = at(node, key, [&] { return model::read_means_csv(*given->file); });
      given->name = *node.value<std::string>();
      return given;
    }
    const auto* rows = node.as_array();
    if (!rows)
      fail(node, key, "expected a CSV path or a matrix (a list of rows), got " + type_name(node));
    auto& table = given->table;
    for (const auto& row_node : *rows) {
      const auto* row = row_node.as_array();
      if (!row)
        fail(row_node, key, "a matrix row must be a list of numbers, got " + type_name(row_node));
      std::vector<double> values;
      for (const auto& v : *row) {
        values.push_back(number(v, key));
        at(v, key, [&] { limits::check(values.back(), "mean", limits::mean); });
      }
      const auto origin =
          fmt::format("{}: key '{}' row {}", where(row_node), key, table.rows.size() + 1);
      if (!table.rows.empty() && values.size() != table.rows.front().size()) {
        fail(row_node, key,
             fmt::format(
                 "row {} has {} values but row 1 has {} (every client needs one mean per arm)",
                 table.rows.size() + 1, values.size(), table.rows.front().size()));
      }
      table.rows.push_back(std::move(values));
      table.row_origin.push_back(origin);
    }
    if (table.rows.empty() || table.rows.front().empty()) fail(node, key, "the matrix is empty");
    given->name = "inline";
    return given;
  }

  // A value of `parameter` at `node`, checked.
  Value value(const Parameter& parameter, const toml::node& node) const {
    const std::string key(parameter.key);
    Value value;
    switch (parameter.type) {
      case ValueType::real:
        value = number(node, key);
        break;
      case ValueType::whole:
        value = count(node, key, parameter.least, parameter.most);
        break;
      case ValueType::word:
        value = string(node, key);
        break;
      case ValueType::means:
        value = means(node, key);
        break;
    }
    if (parameter.check) at(node, key, [&] { parameter.check(value); });
    return value;
  }

  // instance.means: a path, a list of paths, a matrix, or a list of matrices.
  std::vector<const toml::node*> instances(const toml::node& node, const std::string& key) const {
    const auto* list = node.as_array();
    if (!list || list->empty()) return {&node};
    const auto* first = list->get(0);
    const bool list_of_matrices =
        first->is_array() && first->as_array()->size() > 0 && first->as_array()->get(0)->is_array();
    if (first->is_string() || list_of_matrices) return values(node, key);
    return {&node};  // one matrix
  }

 private:
  std::string file_;
  std::filesystem::path base_;
};

// The keys a table of the file may hold: the parameters' own; the top
// level's name and description, which change no result; `zip`, and the
// [[sweep]] blocks, which hold the same keys as the top level but `seed`
// (one for the whole experiment), `sweep` and the top level's words.
std::map<std::string, std::vector<std::string_view>> known_keys() {
  std::map<std::string, std::vector<std::string_view>> known{
      {"", {"name", "description", "skip_refused"}}};
  for (const auto& parameter : parameters()) {
    const auto dot = parameter.key.find('.');
    if (dot == std::string_view::npos) {
      known[""].push_back(parameter.key);
      continue;
    }
    const std::string table(parameter.key.substr(0, dot));
    if (!known.count(table)) known[""].push_back(parameter.key.substr(0, dot));
    known[table].push_back(parameter.key.substr(dot + 1));
  }
  known[""].push_back("zip");
  auto& block = known["sweep"];
  for (const auto key : known[""]) {
    if (key != "name" && key != "description" && key != "seed" && key != "skip_refused") {
      block.push_back(key);
    }
  }
  known[""].push_back("sweep");
  return known;
}

// `prefix` names the table in messages, `at` in `known` ("sweep" for a
// block, whose subtables are the top level's).
void check_known_keys(const Reader& reader, const toml::table& table, const std::string& prefix,
                      const std::string& at,
                      const std::map<std::string, std::vector<std::string_view>>& known) {
  const auto& here = known.at(at);
  for (const auto& [key, value] : table) {
    const std::string word(key.str());
    const auto name = prefix.empty() ? word : prefix + "." + word;
    if (std::find(here.begin(), here.end(), word) == here.end()) {
      reader.fail(value, name, fmt::format("unknown key (expected one of: {})", join(here)));
    }
    if (at.empty() && word == "sweep") {
      const auto* blocks = value.as_array();
      if (!blocks || !blocks->is_array_of_tables() || blocks->empty()) {
        reader.fail(value, name, "expected [[sweep]] tables, one per block of the sweep");
      }
      for (const auto& block : *blocks) {
        check_known_keys(reader, *block.as_table(), name, "sweep", known);
      }
    } else if ((at.empty() || at == "sweep") && word != "sweep" && known.count(word)) {
      const auto* sub = value.as_table();
      if (!sub) reader.fail(value, name, "expected a table, got " + type_name(value));
      check_known_keys(reader, *sub, name, word, known);
    }
  }
}

// Registers the Python classes ("module:Class") that `table`'s
// algorithm.name names, at the top level and in its [[sweep]] blocks, before
// its keys are checked: their options are keys of this file.
void resolve_algorithms(const Reader& reader, const toml::table& table) {
  const auto resolve_in = [&](const toml::table& at, const std::string& prefix) {
    const auto* node = at.at_path("algorithm.name").node();
    if (!node) return;
    const auto* list = node->as_array();
    const auto each = [&](const toml::node& name) {
      if (const auto* word = name.as_string()) {
        reader.at(name, prefix + "algorithm.name",
                  [&] { algorithms::resolve_algorithm(word->get()); });
      }
    };
    if (list) {
      for (const auto& element : *list) each(element);
    } else {
      each(*node);
    }
  };
  resolve_in(table, "");
  if (const auto* blocks = table.get_as<toml::array>("sweep")) {
    for (const auto& block : *blocks) {
      if (const auto* sweep = block.as_table()) resolve_in(*sweep, "sweep.");
    }
  }
}

// toml++'s descriptions are a sentence that may quote a key of the file.
constexpr std::size_t description_chars = 200;

// "FILE:LINE:COL: key 'K': TOML syntax error: ... (line N: TEXT)", with the
// key read off the offending line, since the parser does not know it; the
// key, the line and the description (which quotes the text) as excerpts.
std::string syntax_error(const std::string& shown_file, const std::string& text,
                         const toml::parse_error& e) {
  const auto number = e.source().begin.line;
  std::string line;
  std::istringstream lines(text);
  for (std::uint32_t i = 0; i < number && std::getline(lines, line); ++i) {
  }
  if (line.ends_with('\r')) line.pop_back();  // a CRLF file's line end
  const auto first = line.find_first_not_of(" \t[");
  const auto last = first == std::string::npos ? first : line.find_first_of(" \t=]\"", first);
  const auto key = first == std::string::npos ? "" : line.substr(first, last - first);
  return fmt::format("{}:{}:{}: {}TOML syntax error: {} (line {}: {})", shown_file, number,
                     e.source().begin.column, key.empty() ? "" : "key '" + excerpt(key) + "': ",
                     excerpt(e.description(), description_chars), number, excerpt(line));
}

}  // namespace

ExperimentFile::ExperimentFile(const std::filesystem::path& path)
    : ExperimentFile(read_text_file(path, "experiment file", max_experiment_bytes),
                     excerpt(path.string(), path_excerpt_chars),
                     std::filesystem::absolute(path).parent_path()) {}

ExperimentFile::ExperimentFile(std::string text, std::string shown, std::filesystem::path directory)
    : shown_(std::move(shown)), directory_(std::move(directory)), text_(std::move(text)) {
  if (text_.size() > max_experiment_bytes) {
    throw UserError(fmt::format("{} is larger than {} MiB, the limit for an experiment", shown_,
                                max_experiment_bytes >> 20));
  }
  check_toml_limits(text_, shown_);
  try {
    table_ = toml::parse(text_, shown_);
  } catch (const toml::parse_error& e) {
    throw UserError(syntax_error(shown_, text_, e));
  }
  const Reader reader(shown_, directory_);
  resolve_algorithms(reader, table_);
  check_known_keys(reader, table_, "", "", known_keys());
  // read by no cell, but a study's label: a text, as docs/experiment.md shows
  for (const auto* label : {"name", "description"}) {
    if (const auto* node = table_.get(label)) reader.string(*node, label);
  }
  if (const auto* node = table_.get("skip_refused")) {
    if (!node->is_boolean()) {
      reader.fail(*node, "skip_refused", "expected true or false, got " + type_name(*node));
    }
    skip_refused_ = *node->value<bool>();
  }
  if (const auto* blocks = table_.get_as<toml::array>("sweep")) {
    for (const auto& block : *blocks) blocks_.push_back(block.as_table());
  }
}

std::vector<Value> ExperimentFile::values(const Parameter& parameter, Block block) const {
  const Reader reader(shown_, directory_);
  const std::string key(parameter.key);
  const auto& node = *this->node(key, block);
  const auto nodes = parameter.type == ValueType::means ? reader.instances(node, key)
                     : parameter.sweeps                 ? reader.values(node, key)
                                                        : std::vector{&node};
  std::vector<Value> values;
  for (const auto* n : nodes) values.push_back(reader.value(parameter, *n));
  return values;
}

std::vector<ExperimentFile::ZipGroup> ExperimentFile::zips(Block block) const {
  const auto* node = this->node("zip", block);
  if (!node) return {};
  const auto* list = node->as_array();
  const auto expected = [&](const toml::node& at) {
    fail(at, "zip",
         "expected a list of keys that advance together, e.g. [\"horizon\", \"comm_cost\"], "
         "or a list of such lists");
  };
  if (!list || list->empty()) expected(*node);
  std::vector<const toml::array*> groups;
  if (list->get(0)->is_array()) {
    for (const auto& group : *list) {
      if (!group.is_array()) expected(group);
      groups.push_back(group.as_array());
    }
  } else {
    groups.push_back(list);
  }
  std::vector<ZipGroup> out;
  std::vector<std::string> seen;
  for (const auto* group : groups) {
    ZipGroup zipped{{}, group};
    for (const auto& element : *group) {
      if (!element.is_string()) expected(element);
      const auto key = *element.value<std::string>();
      const auto* parameter = find_parameter(key);
      if (!parameter || !parameter->sweeps) {
        fail(element, "zip", fmt::format("'{}' is not a key that sweeps", excerpt(key)));
      }
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        fail(element, "zip", fmt::format("'{}' is zipped twice", key));
      }
      seen.push_back(key);
      zipped.keys.push_back(key);
    }
    if (zipped.keys.size() < 2) fail(*group, "zip", "a zip needs two keys or more");
    out.push_back(std::move(zipped));
  }
  return out;
}

void ExperimentFile::fail(const toml::node& node, std::string_view key,
                          const std::string& problem) const {
  Reader(shown_, directory_).fail(node, std::string(key), problem);
}

void ExperimentFile::fail_missing(std::string_view key, const std::string& problem) const {
  const auto table = key.substr(0, key.find('.'));
  if (const auto* node = table_.get(table); node && table != key) fail(*node, key, problem);
  throw UserError(fmt::format("{}: key '{}' {}", shown_, key, problem));
}

}  // namespace pfmab::io
