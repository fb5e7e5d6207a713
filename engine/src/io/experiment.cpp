#include "pfmab/io/experiment.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "pfmab/algorithms/participation.hpp"
#include "pfmab/algorithms/registry.hpp"
#include "pfmab/model/limits.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/util/checked.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/parse.hpp"

#include "io/experiment_file.hpp"

namespace pfmab::io {
namespace {

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
    const auto& entry = find_algorithm(v.word("algorithm.name"));
    spec.algorithm = [&entry, v](const sim::CellContext& cell) { return entry.configure(v, cell); };
    spec.alpha = v.real("alpha");
    spec.algorithm_alpha = v.real("algorithm.alpha");
    spec.horizon = v.whole("horizon");
    spec.comm_cost = v.real("comm_cost");
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

// How a cell is named in a message about it: with its schedule if its
// algorithm has one.
std::string describe(std::size_t index, const CellValues& values) {
  const auto& algorithm = values.word("algorithm.name");
  auto named = fmt::format("cell {} ({}, alpha {}, horizon {}", index, algorithm,
                           values.real("alpha"), values.whole("horizon"));
  if (algorithms::owner_of("algorithm.schedule") == algorithms::find_algorithm(algorithm).options) {
    named += fmt::format(", schedule {}", values.word("algorithm.schedule"));
  }
  return named + ")";
}

// A value as a message shows it: a word as it is written.
std::string shown(const Value& value) {
  if (const auto* word = std::get_if<std::string>(&value)) return *word;
  return to_json(value).dump();
}

// Refuses a value other than its default for an option the cell's algorithm
// does not have (another algorithm's), the same way for every algorithm.
void check_options(const CellValues& values) {
  const auto& algorithm = algorithms::find_algorithm(values.word("algorithm.name"));
  const auto all = parameters();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto* owner = algorithms::owner_of(all[i].key);
    if (!owner || owner == algorithm.options) continue;
    const auto fallback = all[i].fallback.empty() && all[i].derive ? all[i].derive(values.all())
                                                                    : default_values(all[i]).front();
    if (values.all()[i] == fallback) continue;
    throw UserError(fmt::format("{} '{}' is {}'s; {} has none (use '{}' or leave it out)",
                                all[i].name(), shown(values.all()[i]), owner->owner, algorithm.name,
                                shown(fallback)));
  }
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
  experiment.source = file ? file->string() : "command line";
  const auto shown_source = excerpt(experiment.source, path_excerpt_chars);
  const auto read = file ? ExperimentFile(*file) : ExperimentFile();
  if (file) experiment.files.push_back(*file);
  experiment.text = read.text();
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
  if (!flag_of("instance.means") && !read.node("instance.means")) {
    if (!file) {
      throw UserError(
          "no instance given (use --means FILE.csv, --means-inline 'ROWS' or an experiment file)");
    }
    read.fail_missing("instance.means",
                      "is missing (a CSV path relative to the experiment file, or a matrix of "
                      "local means, one row per client)");
  }
  constexpr auto both = "give a participation probability q or a number of clients S, not both";
  const bool probability = flag_of("participation.probability") ||
                           read.node("participation.probability");
  if (const auto* clients = flag_of("participation.clients"); clients && probability) {
    throw UserError(fmt::format("{} (key 'participation.clients'): {}", clients->flag, both));
  } else if (const auto* node = read.node("participation.clients"); node && probability) {
    read.fail(*node, "participation.clients", both);
  }
  std::vector<std::vector<Value>> lists;
  for (const auto& parameter : parameters()) {
    const std::string key(parameter.key);
    if (const auto* given = flag_of(key)) {
      lists.push_back(given->values);
    } else if (read.node(key)) {
      lists.push_back(read.values(parameter));
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
    auto spec = builder.spec(cell);  // the instance's errors name where its means were given
    const auto index = experiment.cells.size();
    try {
      check_options(cell);
      experiment.cells.emplace_back(std::move(spec), index);  // every combined constraint
    } catch (const UserError& e) {
      throw UserError(fmt::format("{}: {}: {}", shown_source, describe(index, cell), e.what()));
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
