#include "pfmab/io/experiment.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "pfmab/algorithms/algorithm.hpp"
#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/io/toml_limits.hpp"
#include "pfmab/model/limits.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/util/checked.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/parse.hpp"
#include "pfmab/util/text_file.hpp"

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

// The keys a table of the file may hold: the parameters' own, and the
// top level's name and description, which change no result.
std::map<std::string, std::vector<std::string_view>> known_keys() {
  std::map<std::string, std::vector<std::string_view>> known{{"", {"name", "description"}}};
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
  return known;
}

void check_known_keys(const Reader& reader, const toml::table& table, const std::string& prefix,
                      const std::map<std::string, std::vector<std::string_view>>& known) {
  const auto& here = known.at(prefix);
  for (const auto& [key, value] : table) {
    const auto name =
        prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    if (std::find(here.begin(), here.end(), key.str()) == here.end()) {
      reader.fail(value, name, fmt::format("unknown key (expected one of: {})", join(here)));
    }
    if (prefix.empty() && known.count(std::string(key.str()))) {
      const auto* sub = value.as_table();
      if (!sub) reader.fail(value, name, "expected a table, got " + type_name(value));
      check_known_keys(reader, *sub, name, known);
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
                     e.source().begin.column,
                     key.empty() ? "" : "key '" + excerpt(key) + "': ",
                     excerpt(e.description(), description_chars), number, excerpt(line));
}

// Refuses a sweep larger than the machine can hold or pfmab can count:
// cells, the means held with them, and replications in all
// (docs/limits.md).
void check_sweep_size(const Experiment& experiment, const std::vector<std::size_t>& sizes,
                      const std::vector<Value>& means) {
  std::optional<std::uint64_t> cells = 1;
  for (const auto size : sizes) cells = cells ? checked_mul(*cells, size) : std::nullopt;
  if (!cells || *cells > limits::max_cells) {
    throw UserError(fmt::format(
        "{}: the sweep has {} cells (the product of the lengths of its lists); at most {} are "
        "accepted: split it into several experiments",
        experiment.source, cells ? fmt::to_string(*cells) : "more than 2^64", limits::max_cells));
  }
  std::uint64_t largest = 0;  // M K of the largest instance
  for (const auto& value : means) {
    const auto& rows = std::get<std::shared_ptr<const GivenMeans>>(value)->table.rows;
    largest = std::max<std::uint64_t>(largest, rows.size() * rows.front().size());
  }
  if (*cells * largest > limits::max_sweep_means) {
    throw UserError(fmt::format(
        "{}: {} cells of up to {} means each hold more than {} means in memory: split the sweep",
        experiment.source, *cells, largest, limits::max_sweep_means));
  }
  if (const auto total = checked_mul(*cells, experiment.replications);
      !total || *total > limits::max_replications) {
    throw UserError(fmt::format(
        "{}: {} cells x {} replications is above 2^62, the most replications pfmab counts",
        experiment.source, *cells, experiment.replications));
  }
}

// One value of `parameter` written as its flag takes it, checked.
Value parse_value(const Parameter& parameter, std::string_view text) {
  Value value;
  switch (parameter.type) {
    case ValueType::real:
      value = parse_real(text, parameter.key);
      break;
    case ValueType::whole: {
      const auto whole = parse_count(text, parameter.key);
      if (whole < parameter.least) {
        throw UserError(fmt::format("must be at least {} (got {})", parameter.least, whole));
      }
      if (whole > parameter.most) {
        throw UserError(fmt::format("must be at most {} (got {})", parameter.most, whole));
      }
      value = whole;
      break;
    }
    case ValueType::word:
      value = std::string(text);
      break;
    case ValueType::means:
      throw std::logic_error("means are read by parse_flag");
  }
  if (parameter.check) parameter.check(value);
  return value;
}

// A sweeping parameter's list, or another's one value, from its default.
std::vector<Value> default_values(const Parameter& parameter) {
  if (parameter.fallback.empty()) return {std::monostate{}};
  std::vector<Value> values;
  std::string_view rest = parameter.fallback;
  while (true) {
    const auto comma = rest.find(',');
    values.push_back(parse_value(parameter, rest.substr(0, comma)));
    if (comma == std::string_view::npos) return values;
    rest.remove_prefix(comma + 1);
  }
}

// Renders the overrides as TOML, for the record of what the run was given.
std::string render(const std::vector<FlagValues>& overrides) {
  std::ostringstream out;
  for (const auto& given : overrides) {
    nlohmann::json values = nlohmann::json::array();
    for (const auto& value : given.values) values.push_back(to_json(value));
    out << given.parameter->key << " = " << (values.size() == 1 ? values[0] : values).dump()
        << "  # " << given.flag << "\n";
  }
  return out.str();
}

// The typed cell of a combination of values: the instance (shared between
// cells of the same means, family and sigma) and every setting.
class CellBuilder {
 public:
  sim::CellSpec spec(const CellValues& v) {
    using namespace algorithms;
    sim::CellSpec spec;
    spec.instance = instance(v);
    spec.instance_name = v.means().name;
    spec.algorithm = parse_algorithm_kind(v.word("algorithm.name"));
    spec.alpha = v.real("alpha");
    spec.algorithm_alpha = v.real("algorithm.alpha");
    spec.horizon = v.whole("horizon");
    spec.comm_cost = v.real("comm_cost");
    auto& params = spec.params;
    params.preset = parse_preset(v.word("algorithm.preset"));
    params.schedule = {parse_schedule_kind(v.word("algorithm.schedule")),
                       v.real("algorithm.lambda"), v.real("algorithm.schedule_factor")};
    params.confidence_constant = v.real("algorithm.confidence_constant");
    params.log_term =
        v.word("algorithm.log_term") == "T" ? LogTerm::horizon : LogTerm::clients_horizon;
    params.lengths = parse_lengths(v.word("algorithm.lengths"));
    spec.participation = {
        v.has("participation.probability") ? v.real("participation.probability") : 1.0,
        v.has("participation.clients")
            ? std::optional<std::uint64_t>(v.whole("participation.clients"))
            : std::nullopt,
        parse_aggregation(v.word("participation.aggregate"))};
    spec.checkpoints = {v.whole("checkpoints.log_points"), v.whole("checkpoints.linear_points")};
    spec.fidelity = sim::parse_fidelity(v.word("mode"));
    return spec;
  }

 private:
  std::shared_ptr<const model::Instance> instance(const CellValues& v) {
    const auto* means = &v.means();
    const auto key = std::make_tuple(means, v.word("instance.rewards"), v.real("instance.sigma"));
    auto& instance = instances_[key];
    if (!instance) {
      try {
        instance = std::make_shared<const model::Instance>(
            means->table,
            model::RewardFamily{model::parse_reward_kind(std::get<1>(key)), std::get<2>(key)});
      } catch (const UserError& e) {
        throw UserError(fmt::format("{}: {}", means->given_at, e.what()));
      }
    }
    return instance;
  }

  std::map<std::tuple<const GivenMeans*, std::string, double>,
           std::shared_ptr<const model::Instance>>
      instances_;
};

// How a cell is named in a message about it.
std::string describe(std::size_t index, const sim::CellSpec& spec) {
  return fmt::format("cell {} ({}, alpha {}, horizon {}, schedule {})", index,
                     algorithms::to_string(spec.algorithm), spec.alpha, spec.horizon,
                     algorithms::to_string(spec.params.schedule.kind));
}

}  // namespace

FlagValues parse_flag(const Parameter& parameter, std::string_view flag, std::string_view text,
                      bool inline_means) {
  FlagValues given{&parameter, std::string(flag), {}};
  const auto placed = [&](auto&& read) {
    try {
      read();
    } catch (const UserError& e) {
      throw UserError(fmt::format("{} (key '{}'): {}", flag, parameter.key, e.what()));
    }
  };
  placed([&] {
    if (parameter.type == ValueType::means) {
      auto means = std::make_shared<GivenMeans>();
      means->given_at = fmt::format("{} (key '{}')", flag, parameter.key);
      if (inline_means) {
        means->table = model::parse_inline_means(text);
        means->name = "inline";
      } else {
        means->file = std::filesystem::path(text);
        means->table = model::read_means_csv(*means->file);
        means->name = std::string(text);
      }
      given.values.push_back(std::shared_ptr<const GivenMeans>(std::move(means)));
      return;
    }
    if (text.empty()) throw UserError("give a value");
    std::string_view rest = text;
    while (true) {
      const auto comma = parameter.sweeps ? rest.find(',') : std::string_view::npos;
      given.values.push_back(parse_value(parameter, rest.substr(0, comma)));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  });
  return given;
}

FlagValues flag_values(std::string_view key, std::string_view text) {
  const auto* parameter = find_parameter(key);
  if (!parameter) throw std::logic_error(fmt::format("no parameter '{}'", key));
  const auto flags = parameter->flags.empty() ? key : parameter->flags;
  return parse_flag(*parameter, flags.substr(0, flags.find(',')), text);
}

Experiment load_experiment(const std::optional<std::filesystem::path>& file,
                           const std::vector<FlagValues>& overrides) {
  Experiment experiment;
  toml::table table;
  experiment.source = file ? file->string() : "command line";
  const auto shown_source = excerpt(experiment.source, path_excerpt_chars);
  if (file) {
    experiment.files.push_back(*file);
    experiment.text = read_text_file(*file, "experiment file", max_experiment_bytes);
    check_toml_limits(experiment.text, shown_source);
    try {
      table = toml::parse(experiment.text, experiment.source);
    } catch (const toml::parse_error& e) {
      throw UserError(syntax_error(shown_source, experiment.text, e));
    }
  }
  const Reader reader(shown_source, file ? std::filesystem::absolute(*file).parent_path()
                                         : std::filesystem::path{});
  check_known_keys(reader, table, "", known_keys());
  if (!overrides.empty()) {
    experiment.text += "\n# command-line overrides\n" + render(overrides) + "\n";
  }

  // Every parameter's values: the flag's, else the file's, else the default.
  const auto flag_of = [&](std::string_view key) -> const FlagValues* {
    for (const auto& given : overrides) {
      if (given.parameter->key == key) return &given;
    }
    return nullptr;
  };
  const auto file_node = [&](std::string_view key) { return table.at_path(key).node(); };
  if (!flag_of("instance.means") && !file_node("instance.means")) {
    if (!file) {
      throw UserError(
          "no instance given (use --means FILE.csv, --means-inline 'ROWS' or an experiment file)");
    }
    const std::string problem =
        "is missing (a CSV path relative to the experiment file, or a matrix of local means, "
        "one row per client)";
    if (const auto* instance = table.get("instance")) reader.fail(*instance, "instance.means", problem);
    throw UserError(fmt::format("{}: key 'instance.means' {}", shown_source, problem));
  }
  if (const auto* clients = flag_of("participation.clients")) {
    if (flag_of("participation.probability") || file_node("participation.probability")) {
      throw UserError(fmt::format(
          "{} (key 'participation.clients'): give a participation probability q or a number "
          "of clients S, not both",
          clients->flag));
    }
  } else if (const auto* node = file_node("participation.clients");
             node && (flag_of("participation.probability") ||
                      file_node("participation.probability"))) {
    reader.fail(*node, "participation.clients",
                "give a participation probability q or a number of clients S, not both");
  }
  std::vector<std::vector<Value>> lists;
  for (const auto& parameter : parameters()) {
    const std::string key(parameter.key);
    if (const auto* given = flag_of(key)) {
      lists.push_back(given->values);
    } else if (const auto* node = file_node(key)) {
      std::vector<Value> values;
      const auto nodes = parameter.type == ValueType::means ? reader.instances(*node, key)
                         : parameter.sweeps                  ? reader.values(*node, key)
                                                             : std::vector{node};
      for (const auto* n : nodes) values.push_back(reader.value(parameter, *n));
      lists.push_back(std::move(values));
    } else {
      lists.push_back(default_values(parameter));
    }
  }
  for (const auto& value : lists[index_of("instance.means")]) {
    if (const auto& csv = std::get<std::shared_ptr<const GivenMeans>>(value)->file) {
      experiment.files.push_back(*csv);
    }
  }
  experiment.seed = std::get<std::uint64_t>(lists[index_of("seed")].front());
  experiment.replications = std::get<std::uint64_t>(lists[index_of("replications")].front());

  // The cartesian product, first parameter outermost, bounded before it is
  // built.
  std::vector<std::size_t> sizes;
  for (const auto& list : lists) sizes.push_back(list.size());
  check_sweep_size(experiment, sizes, lists[index_of("instance.means")]);
  experiment.canonical = {{"seed", experiment.seed},
                          {"replications", experiment.replications},
                          {"cells", nlohmann::json::array()}};
  CellBuilder builder;
  std::vector<std::size_t> at(sizes.size(), 0);
  while (true) {
    std::vector<Value> values;
    for (std::size_t k = 0; k < lists.size(); ++k) values.push_back(lists[k][at[k]]);
    for (std::size_t k = 0; k < values.size(); ++k) {
      const auto& parameter = parameters()[k];
      if (parameter.derive && std::holds_alternative<std::monostate>(values[k])) {
        values[k] = parameter.derive(values);
      }
    }
    CellValues cell(std::move(values));
    auto spec = builder.spec(cell);
    const auto index = experiment.cells.size();
    try {
      experiment.cells.emplace_back(spec, index);  // every combined constraint
    } catch (const UserError& e) {
      throw UserError(fmt::format("{}: {}: {}", shown_source, describe(index, spec), e.what()));
    }
    experiment.canonical["cells"].push_back(cell.to_json());
    experiment.values.push_back(std::move(cell));
    // next combination: the last parameter turns fastest
    std::size_t k = sizes.size();
    while (k > 0 && ++at[k - 1] == sizes[k - 1]) at[--k] = 0;
    if (k == 0) break;
  }
  return experiment;
}

}  // namespace pfmab::io
