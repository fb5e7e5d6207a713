#include "pfmab/io/experiment.hpp"

#include <cmath>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "pfmab/algorithms/algorithm.hpp"
#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/model/limits.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/model/mixed_model.hpp"
#include "pfmab/util/checked.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/text_file.hpp"

#include "io/toml_limits.hpp"

namespace pfmab::io {

const std::vector<std::string> sweep_keys{
    "instance.means",
    "instance.rewards",
    "instance.sigma",
    "algorithm.name",
    "algorithm.preset",
    "alpha",
    "algorithm.alpha",
    "horizon",
    "comm_cost",
    "algorithm.schedule",
    "algorithm.lambda",
    "algorithm.schedule_factor",
    "algorithm.confidence_constant",
    "algorithm.log_term",
    "algorithm.lengths",
    "participation.probability",
    "participation.clients",
    "participation.aggregate",
};

namespace {

// Every key the format knows, by table ("" is the top level).
const std::map<std::string, std::vector<std::string>> known_keys{
    {"",
     {"name", "description", "seed", "replications", "horizon", "alpha", "comm_cost", "mode",
      "instance", "algorithm", "participation", "checkpoints"}},
    {"instance", {"means", "rewards", "sigma"}},
    {"algorithm",
     {"name", "preset", "alpha", "schedule", "lambda", "schedule_factor", "confidence_constant",
      "log_term", "lengths"}},
    {"participation", {"probability", "clients", "aggregate"}},
    {"checkpoints", {"log_points", "linear_points"}},
};

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
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

// Reads values out of the merged table, reporting every problem at the node
// it comes from: "FILE:LINE:COL: key 'K': ..." for the file, "command line:
// key 'K': ..." for an override (those nodes have no source position).
class Reader {
 public:
  Reader(std::string shown_file, std::filesystem::path base,
         std::map<std::string, std::string> flags)
      : file_(std::move(shown_file)), base_(std::move(base)), flags_(std::move(flags)) {}

  std::string where(const toml::node& node) const {
    const auto& begin = node.source().begin;
    if (begin.line == 0) return "command line";
    return fmt::format("{}:{}:{}", file_, begin.line, begin.column);
  }

  [[noreturn]] void fail(const toml::node& node, const std::string& key,
                         const std::string& problem) const {
    const auto flag = flags_.find(key);
    if (node.source().begin.line == 0 && flag != flags_.end()) {
      throw PlacedError(fmt::format("{} (key '{}'): {}", flag->second, excerpt(key), problem));
    }
    throw PlacedError(fmt::format("{}: key '{}': {}", where(node), excerpt(key), problem));
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

  // The CSV file a string node names.
  std::filesystem::path csv_path(const toml::node& node) const {
    const std::filesystem::path given = *node.value<std::string>();
    return given.is_absolute() || node.source().begin.line == 0 ? given : base_ / given;
  }

  // The means a node stands for: one CSV path or one inline matrix.
  std::pair<model::MeansTable, std::string> means(const toml::node& node,
                                                  const std::string& key) const {
    if (node.is_string()) {
      return {at(node, key, [&] { return model::read_means_csv(csv_path(node)); }),
              *node.value<std::string>()};
    }
    const auto* rows = node.as_array();
    if (!rows)
      fail(node, key, "expected a CSV path or a matrix (a list of rows), got " + type_name(node));
    model::MeansTable table;
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
    return {std::move(table), "inline"};
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
  std::map<std::string, std::string> flags_;  // overridden key -> its flag
};

// Lays `overrides` over `base`, one table level deep.
void merge(toml::table& base, const toml::table& overrides) {
  for (const auto& [key, value] : overrides) {
    if (const auto* sub = value.as_table(); sub && base.get_as<toml::table>(key.str())) {
      merge(*base.get_as<toml::table>(key.str()), *sub);
    } else {
      base.insert_or_assign(key.str(), value);
    }
  }
}

void check_known_keys(const Reader& reader, const toml::table& table, const std::string& prefix) {
  const auto& known = known_keys.at(prefix);
  for (const auto& [key, value] : table) {
    const auto name =
        prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    if (std::find(known.begin(), known.end(), key.str()) == known.end()) {
      reader.fail(value, name, fmt::format("unknown key (expected one of: {})", join(known)));
    }
    if (prefix.empty() && known_keys.count(std::string(key.str()))) {
      const auto* sub = value.as_table();
      if (!sub) reader.fail(value, name, "expected a table, got " + type_name(value));
      check_known_keys(reader, *sub, name);
    }
  }
}

// The node at a dotted key, or the default written as TOML, or nothing for
// a key without one (its value then follows from others).
const toml::node* lookup(const toml::table& table, const std::string& key,
                         const toml::table& defaults) {
  if (const auto* node = table.at_path(key).node()) return node;
  return defaults.at_path(key).node();
}

const toml::table& default_values() {
  static const toml::table defaults = toml::parse(R"(
    seed = 1
    replications = 100
    horizon = 1000000
    alpha = [0.0, 0.2, 0.5, 0.9, 1.0]
    comm_cost = 1.0
    mode = "aggregated"
    [instance]
    rewards = "gaussian"
    sigma = 1.0
    [algorithm]
    name = "pf-ucb"
    preset = "paper"
    schedule = "doubling-log"
    lambda = 1.0
    schedule_factor = 1.0
    log_term = "T"
    lengths = "paper"
    [participation]
    probability = 1.0
    aggregate = "latest"
    [checkpoints]
    log_points = 40
    linear_points = 20
  )");
  return defaults;
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
                      const std::vector<std::pair<model::MeansTable, std::string>>& means) {
  std::optional<std::uint64_t> cells = 1;
  for (const auto size : sizes) cells = cells ? checked_mul(*cells, size) : std::nullopt;
  if (!cells || *cells > limits::max_cells) {
    throw UserError(fmt::format(
        "{}: the sweep has {} cells (the product of the lengths of its lists); at most {} are "
        "accepted: split it into several experiments",
        experiment.source, cells ? fmt::to_string(*cells) : "more than 2^64", limits::max_cells));
  }
  std::uint64_t largest = 0;  // M K of the largest instance
  for (const auto& [table, name] : means) {
    largest = std::max<std::uint64_t>(largest, table.rows.size() * table.rows.front().size());
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

}  // namespace

Experiment load_experiment(const std::optional<std::filesystem::path>& file,
                           const toml::table& overrides,
                           const std::map<std::string, std::string>& flags) {
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
  const Reader reader(
      shown_source,
      file ? std::filesystem::absolute(*file).parent_path() : std::filesystem::path{}, flags);
  check_known_keys(reader, table, "");
  if (!overrides.empty()) {
    std::ostringstream rendered;
    rendered << overrides;
    experiment.text += "\n# command-line overrides\n" + rendered.str() + "\n";
  }
  merge(table, overrides);

  const auto& defaults = default_values();
  auto get = [&](const std::string& key) -> const toml::node& {
    return *lookup(table, key, defaults);
  };
  if (!table.at_path("instance.means").node()) {
    const auto* instance = table.get("instance");
    const std::string problem =
        "is missing (a CSV path relative to the experiment file, or a matrix of local means, "
        "one row per client)";
    if (instance) reader.fail(*instance, "instance.means", problem);
    throw UserError(fmt::format("{}: key 'instance.means' {}", shown_source, problem));
  }
  if (const auto* clients = table.at_path("participation.clients").node();
      clients && table.at_path("participation.probability").node()) {
    reader.fail(*clients, "participation.clients",
                "give a participation probability q or a number of clients S, not both");
  }

  experiment.seed = reader.count(get("seed"), "seed", 0);
  experiment.replications = reader.count(get("replications"), "replications", 1);
  const auto fidelity = reader.at(
      get("mode"), "mode", [&] { return sim::parse_fidelity(reader.string(get("mode"), "mode")); });
  // A replication's series grow with the grid: keep them small.
  constexpr auto max_points = limits::max_checkpoint_points;
  sim::CheckpointSpec checkpoints;
  checkpoints.log_points =
      reader.count(get("checkpoints.log_points"), "checkpoints.log_points", 0, max_points);
  checkpoints.linear_points =
      reader.count(get("checkpoints.linear_points"), "checkpoints.linear_points", 0, max_points);

  // Every sweep key's values, in sweep_keys order; a key without a value or a
  // default has one "absent" value (nullptr).
  std::map<std::string, std::vector<const toml::node*>> axes;
  for (const auto& key : sweep_keys) {
    const auto* node = lookup(table, key, defaults);
    axes[key] = !node                     ? std::vector<const toml::node*>{nullptr}
                : key == "instance.means" ? reader.instances(*node, key)
                                          : reader.values(*node, key);
  }

  // Parse and check every value once, where it is written.
  std::vector<std::pair<model::MeansTable, std::string>> means;
  for (const auto* n : axes["instance.means"]) {
    means.push_back(reader.means(*n, "instance.means"));
    if (n->is_string()) experiment.files.push_back(reader.csv_path(*n));
  }
  auto each = [&](const std::string& key, auto parse) {
    std::vector<decltype(parse(std::declval<const toml::node&>()))> out;
    for (const auto* n : axes[key]) out.push_back(reader.at(*n, key, [&] { return parse(*n); }));
    return out;
  };
  // The same for a key that may be absent: nothing then.
  auto each_optional = [&](const std::string& key, auto parse) {
    std::vector<std::optional<decltype(parse(std::declval<const toml::node&>()))>> out;
    for (const auto* n : axes[key]) {
      if (n) {
        out.emplace_back(reader.at(*n, key, [&] { return parse(*n); }));
      } else {
        out.emplace_back();
      }
    }
    return out;
  };
  const auto rewards = each("instance.rewards", [&](const toml::node& n) {
    return model::parse_reward_kind(reader.string(n, "instance.rewards"));
  });
  const auto sigmas = each("instance.sigma", [&](const toml::node& n) {
    const double sigma = reader.number(n, "instance.sigma");
    model::RewardFamily{model::RewardKind::gaussian, sigma}.validate();
    return sigma;
  });
  const auto names = each("algorithm.name", [&](const toml::node& n) {
    return algorithms::parse_algorithm_kind(reader.string(n, "algorithm.name"));
  });
  const auto presets = each("algorithm.preset", [&](const toml::node& n) {
    return algorithms::parse_preset(reader.string(n, "algorithm.preset"));
  });
  auto alpha_value = [&](const std::string& key) {
    return [&, key](const toml::node& n) {
      const double alpha = reader.number(n, key);
      model::validate_alpha(alpha);
      return alpha;
    };
  };
  const auto alphas = each("alpha", alpha_value("alpha"));
  const auto algorithm_alphas = each_optional("algorithm.alpha", alpha_value("algorithm.alpha"));
  const auto horizons = each("horizon", [&](const toml::node& n) {
    const auto horizon = reader.count(n, "horizon", 0);
    sim::validate_horizon(horizon);
    return horizon;
  });
  const auto comm_costs = each("comm_cost", [&](const toml::node& n) {
    const double c = reader.number(n, "comm_cost");
    sim::validate_comm_cost(c);
    return c;
  });
  const auto schedules = each("algorithm.schedule", [&](const toml::node& n) {
    return algorithms::parse_schedule_kind(reader.string(n, "algorithm.schedule"));
  });
  const auto lambdas = each("algorithm.lambda", [&](const toml::node& n) {
    const double lambda = reader.number(n, "algorithm.lambda");
    algorithms::validate({algorithms::ScheduleKind::constant, lambda, 1.0});
    return lambda;
  });
  const auto factors = each("algorithm.schedule_factor", [&](const toml::node& n) {
    const double factor = reader.number(n, "algorithm.schedule_factor");
    algorithms::validate({algorithms::ScheduleKind::doubling, 1.0, factor});
    return factor;
  });
  // Absent: each preset's own, 4 for the paper and 1 for the authors' code.
  const auto constants = each_optional("algorithm.confidence_constant", [&](const toml::node& n) {
    const double c = reader.number(n, "algorithm.confidence_constant");
    algorithms::validate_confidence_constant(c);
    return c;
  });
  const auto log_terms = each("algorithm.log_term", [&](const toml::node& n) {
    const auto term = reader.string(n, "algorithm.log_term");
    if (term == "T") return algorithms::LogTerm::horizon;
    if (term == "MT") return algorithms::LogTerm::clients_horizon;
    throw UserError(fmt::format("'{}' is not T (log T) or MT (log(MT))", excerpt(term)));
  });
  const auto lengths = each("algorithm.lengths", [&](const toml::node& n) {
    return algorithms::parse_lengths(reader.string(n, "algorithm.lengths"));
  });
  const auto probabilities = each("participation.probability", [&](const toml::node& n) {
    const double q = reader.number(n, "participation.probability");
    algorithms::validate(algorithms::Participation{q, std::nullopt}, 1);
    return q;
  });
  const auto participant_counts = each_optional("participation.clients", [&](const toml::node& n) {
    return reader.count(n, "participation.clients", 1);
  });
  const auto aggregations = each("participation.aggregate", [&](const toml::node& n) {
    return algorithms::parse_aggregation(reader.string(n, "participation.aggregate"));
  });

  // The instances: means x rewards x sigma, each checked against its family.
  std::vector<std::vector<std::vector<std::shared_ptr<const model::Instance>>>> instances(
      means.size());
  for (std::size_t i = 0; i < means.size(); ++i) {
    for (std::size_t r = 0; r < rewards.size(); ++r) {
      instances[i].emplace_back();
      for (std::size_t v = 0; v < sigmas.size(); ++v) {
        instances[i][r].push_back(reader.at(*axes["instance.means"][i], "instance.means", [&] {
          return std::make_shared<const model::Instance>(
              means[i].first, model::RewardFamily{rewards[r], sigmas[v]});
        }));
      }
    }
  }

  // The cartesian product, first key outermost, bounded before it is built.
  std::vector<std::size_t> sizes;
  for (const auto& key : sweep_keys) sizes.push_back(axes[key].size());
  check_sweep_size(experiment, sizes, means);
  std::vector<std::size_t> at(sizes.size(), 0);
  auto index = [&](const std::string& key) {
    return at[std::find(sweep_keys.begin(), sweep_keys.end(), key) - sweep_keys.begin()];
  };
  experiment.canonical = {{"seed", experiment.seed},
                          {"replications", experiment.replications},
                          {"mode", sim::to_string(fidelity)},
                          {"checkpoints", {checkpoints.log_points, checkpoints.linear_points}},
                          {"cells", nlohmann::json::array()}};
  while (true) {
    const auto i = index("instance.means"), r = index("instance.rewards");
    const auto v = index("instance.sigma");
    sim::CellSpec spec;
    spec.instance = instances[i][r][v];
    spec.instance_name = means[i].second;
    spec.algorithm = names[index("algorithm.name")];
    spec.alpha = alphas[index("alpha")];
    spec.algorithm_alpha = algorithm_alphas[index("algorithm.alpha")];
    spec.horizon = horizons[index("horizon")];
    spec.comm_cost = comm_costs[index("comm_cost")];
    auto& params = spec.params;
    params.preset = presets[index("algorithm.preset")];
    params.schedule = {schedules[index("algorithm.schedule")], lambdas[index("algorithm.lambda")],
                       factors[index("algorithm.schedule_factor")]};
    params.confidence_constant = constants[index("algorithm.confidence_constant")].value_or(
        params.preset == algorithms::Preset::authors_code ? 1.0 : 4.0);
    params.log_term = log_terms[index("algorithm.log_term")];
    params.lengths = lengths[index("algorithm.lengths")];
    spec.participation = {probabilities[index("participation.probability")],
                          participant_counts[index("participation.clients")],
                          aggregations[index("participation.aggregate")]};
    spec.checkpoints = checkpoints;
    spec.fidelity = fidelity;
    const auto cell_index = experiment.cells.size();
    try {
      sim::Cell(spec, cell_index);  // every combined constraint, e.g. log T schedules need T >= 2
    } catch (const UserError& e) {
      throw UserError(fmt::format("{}: cell {} ({}, alpha {}, horizon {}, schedule {}): {}",
                                  shown_source, cell_index,
                                  algorithms::to_string(spec.algorithm), spec.alpha, spec.horizon,
                                  algorithms::to_string(params.schedule.kind), e.what()));
    }
    std::vector<std::vector<double>> rows;
    for (std::size_t m = 0; m < spec.instance->clients(); ++m) {
      const auto row = spec.instance->local_means(m);
      rows.emplace_back(row.begin(), row.end());
    }
    auto participation = nlohmann::json::object();
    if (spec.participation.clients) {
      participation["clients"] = *spec.participation.clients;
    } else {
      participation["probability"] = spec.participation.probability;
    }
    // Moot with every client: left out, so that such cells read as before.
    if (!spec.participation.full(spec.instance->clients())) {
      participation["aggregate"] = algorithms::to_string(spec.participation.aggregation);
    }
    experiment.canonical["cells"].push_back({
        {"algorithm", algorithms::to_string(spec.algorithm)},
        {"preset", algorithms::to_string(params.preset)},
        {"means", rows},
        {"rewards", model::to_string(rewards[r])},
        {"sigma", sigmas[v]},
        {"alpha", spec.alpha},
        {"algorithm_alpha", spec.algorithm_alpha.value_or(spec.alpha)},
        {"horizon", spec.horizon},
        {"comm_cost", spec.comm_cost},
        {"schedule", algorithms::to_string(params.schedule.kind)},
        {"lambda", params.schedule.lambda},
        {"schedule_factor", params.schedule.factor},
        {"confidence_constant", params.confidence_constant},
        {"log_term", params.log_term == algorithms::LogTerm::horizon ? "T" : "MT"},
        {"lengths", algorithms::to_string(params.lengths)},
        {"participation", participation},
    });
    experiment.cells.push_back(std::move(spec));
    // next combination: the last key turns fastest
    std::size_t k = sizes.size();
    while (k > 0 && ++at[k - 1] == sizes[k - 1]) at[--k] = 0;
    if (k == 0) break;
  }
  return experiment;
}

}  // namespace pfmab::io
