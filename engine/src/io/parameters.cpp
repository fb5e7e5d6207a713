#include "pfmab/io/parameters.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/families/registry.hpp"
#include "pfmab/model/mixed_model.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/exploration.hpp"
#include "pfmab/sim/participation.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/limits.hpp"
#include "pfmab/util/parse.hpp"

namespace pfmab::io {
namespace {

double real_of(const Value& v) { return std::get<double>(v); }
const std::string& word_of(const Value& v) { return std::get<std::string>(v); }

// The checks: each refuses what the model refuses, in the model's words.
void check_alpha(const Value& v) { model::validate_alpha(real_of(v)); }
void check_rewards(const Value& v) { families::RewardFamily{word_of(v)}; }
// A value of family F's parameter P, against the range F declares.
template <class F, std::size_t P>
void check_family_parameter(const Value& v) {
  const auto& declared = F::parameters[P];
  limits::check(real_of(v), fmt::format("{} reward {}", F::display, declared.name), declared.range);
}

std::string_view rewards_help() {
  static const std::string help = "reward family: " + families::family_names();
  return help;
}
void check_algorithm(const Value& v) { algorithms::find_algorithm(word_of(v)); }
void check_horizon(const Value& v) { sim::validate_horizon(std::get<std::uint64_t>(v)); }
void check_comm_cost(const Value& v) { sim::validate_comm_cost(real_of(v)); }
void check_probability(const Value& v) {
  sim::validate(sim::Participation{real_of(v), std::nullopt}, 1);
}
void check_aggregate(const Value& v) { sim::parse_aggregation(word_of(v)); }
void check_mode(const Value& v) { sim::parse_fidelity(word_of(v)); }

// Absent: the measured alpha (the algorithm is not mis-specified).
Value derive_algorithm_alpha(std::span<const Value> cell) { return cell[index_of("alpha")]; }
// Absent: every client, unless S is given.
Value derive_probability(std::span<const Value> cell) {
  if (std::holds_alternative<std::monostate>(cell[index_of("participation.clients")])) return 1.0;
  return std::monostate{};
}

constexpr std::uint64_t max_points = limits::max_checkpoint_points;

using enum ValueType;

// The engine's parameters; the algorithms declare their options in their
// own files, and parameters() merges both by `order`. A derive runs once
// every parameter has its given or default value, so it may read any of
// them.
// GCC 12 warns of the members a designated initializer leaves to their
// default member initializers, which is what they are for.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const std::array<Parameter, 15> engine_table{{
    {.key = "instance.means",
     .order = 10,
     .flags = "--means",
     .type = means,
     .sweeps = true,
     .help = "local means: a CSV file (a row per client, a column per arm; '#' comments) or a "
             "matrix",
     .record_name = "means"},
    {.key = "instance.rewards",
     .order = 20,
     .flags = "--rewards",
     .type = word,
     .fallback = "gaussian",
     .sweeps = true,
     .help = rewards_help(),
     .check = check_rewards},
    {.key = "algorithm.name",
     .order = 40,
     .flags = "--algorithm",
     .type = word,
     .fallback = "pf-ucb",
     .sweeps = true,
     .help = "the algorithm:",
     .check = check_algorithm,
     .record_name = "algorithm"},
    {.key = "alpha",
     .order = 60,
     .flags = "--alpha",
     .type = real,
     .fallback = "0,0.2,0.5,0.9,1",
     .sweeps = true,
     .help = "personalisation weight(s) the regret is measured with",
     .check = check_alpha},
    {.key = "algorithm.alpha",
     .order = 70,
     .flags = "--algorithm-alpha",
     .type = real,
     .sweeps = true,
     .help = "the alpha the algorithm runs with, if not --alpha (mis-specified)",
     .check = check_alpha,
     .derive = derive_algorithm_alpha,
     .record_name = "algorithm_alpha"},
    {.key = "horizon",
     .order = 80,
     .flags = "--horizon,-T",
     .type = whole,
     .fallback = "1e6",
     .sweeps = true,
     .help = "horizon T in slots (1e6 is fine)",
     .most = limits::max_horizon,
     .check = check_horizon},
    {.key = "comm_cost",
     .order = 90,
     .flags = "--comm-cost,-C",
     .type = real,
     .fallback = "1",
     .sweeps = true,
     .help = "C: regret per client per exchange (2 exchanges per client per phase)",
     .check = check_comm_cost},
    {.key = "participation.probability",
     .order = 160,
     .flags = "--participation",
     .type = real,
     .sweeps = true,
     .help = "q: each client takes part in a phase with probability q",
     .check = check_probability,
     .derive = derive_probability,
     .record_name = "participation_probability"},
    {.key = "participation.clients",
     .order = 170,
     .flags = "--participants",
     .type = whole,
     .sweeps = true,
     .help = "S: exactly S clients take part in each phase",
     .least = 1,
     .record_name = "participation_clients"},
    {.key = "participation.aggregate",
     .order = 180,
     .flags = "--aggregate",
     .type = word,
     .fallback = "latest",
     .sweeps = true,
     .help = "under partial participation the server averages: latest (every client's last "
             "report) or participants (this phase's only)",
     .check = check_aggregate,
     .record_name = "participation_aggregate"},
    {.key = "seed",
     .order = 190,
     .flags = "--seed",
     .type = whole,
     .fallback = "1",
     .of_cell = false,
     .help = "master seed"},
    {.key = "replications",
     .order = 200,
     .flags = "--replications,-R",
     .type = whole,
     .fallback = "100",
     .of_cell = false,
     .help = "replications per cell",
     .least = 1},
    {.key = "mode",
     .order = 210,
     .flags = "--mode",
     .type = word,
     .fallback = "aggregated",
     .sweeps = true,
     .help = "aggregated (one draw per arm and run, cost independent of T) or per-pull (one draw "
             "per pull)",
     .check = check_mode},
    {.key = "checkpoints.log_points",
     .order = 220,
     .type = whole,
     .fallback = "40",
     .help = "log-spaced slots at which the series are recorded",
     .most = max_points},
    {.key = "checkpoints.linear_points",
     .order = 230,
     .type = whole,
     .fallback = "20",
     .help = "evenly spaced slots at which the series are recorded",
     .most = max_points},
}};

// The reward families' parameters (families/family.hpp): instance.<name>,
// flag --<name>, in registration order from sweep place 30 (between
// instance.rewards and algorithm.name), where sigma has always been.
template <class F, std::size_t... P>
void add_parameters_of(std::vector<Parameter>& out, unsigned& order, std::index_sequence<P...>) {
  // (unused for a family with no parameters: an empty fold)
  [[maybe_unused]] const auto parameter =
      [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
        const auto& declared = F::parameters[I];
        static const std::string key = family_parameter_key(declared);
        static const std::string flag = fmt::format("--{}", declared.name);
        static const std::string fallback = fmt::format("{}", declared.fallback);
        if (find_if(out.begin(), out.end(), [&](const Parameter& p) { return p.key == key; }) !=
            out.end()) {
          throw std::logic_error(fmt::format("two reward families declare '{}'", declared.name));
        }
        out.push_back({.key = key,
                       .order = order++,
                       .flags = flag,
                       .type = real,
                       .fallback = fallback,
                       .sweeps = true,
                       .help = declared.help,
                       .check = check_family_parameter<F, I>});
      };
  (parameter(std::integral_constant<std::size_t, P>{}), ...);
}

std::vector<Parameter> family_parameters() {
  std::vector<Parameter> out;
  unsigned order = 30;
  [&]<class... F>(std::type_identity<std::tuple<F...>>) {
    (add_parameters_of<F>(out, order, std::make_index_sequence<F::parameters.size()>{}), ...);
  }(std::type_identity<families::Registered>{});
  if (order > 40) throw std::logic_error("the reward families' parameters overrun place 40");
  return out;
}
#pragma GCC diagnostic pop

// Whether `family` declares a parameter `name`, and whether `parameter` is
// one of some family's.
bool declares(const families::Family& family, std::string_view name) {
  const auto declared = family.parameters();
  return std::any_of(declared.begin(), declared.end(),
                     [&](const families::FamilyParameter& p) { return p.name == name; });
}
bool family_parameter(const Parameter& parameter) {
  const auto all = families::all_families();
  return parameter.key.starts_with("instance.") &&
         std::any_of(all.begin(), all.end(), [&](const families::Family* family) {
           return declares(*family, parameter.name());
         });
}

}  // namespace

std::string family_parameter_key(const families::FamilyParameter& parameter) {
  return fmt::format("instance.{}", parameter.name);
}

std::span<const Parameter> parameters() {
  // Made again, longer, when an algorithm is registered at run time; every
  // table made is kept, so that no span handed out dangles. Its options sort
  // after every other parameter, so each parameter keeps its index.
  static std::mutex mutex;
  static std::vector<std::unique_ptr<const std::vector<Parameter>>> tables;
  static std::atomic<const std::vector<Parameter>*> current{nullptr};
  static std::atomic<std::size_t> made_at{0};  // registrations() when `current` was made
  const auto registered = algorithms::registrations();
  if (const auto* table = current.load(std::memory_order_acquire);
      table && made_at.load(std::memory_order_acquire) == registered) {
    return *table;
  }
  const std::lock_guard lock(mutex);
  if (!current.load() || made_at.load() != registered) {
    auto v = std::make_unique<std::vector<Parameter>>(engine_table.begin(), engine_table.end());
    const auto of_families = family_parameters();
    v->insert(v->end(), of_families.begin(), of_families.end());
    for (const auto* group : algorithms::option_groups()) {
      for (const auto& parameter : group->parameters) {
        // a key two groups share is one parameter (algorithms::owner_of)
        if (std::none_of(v->begin(), v->end(),
                         [&](const Parameter& p) { return p.key == parameter.key; })) {
          v->push_back(parameter);
        }
      }
    }
    std::stable_sort(v->begin(), v->end(),
                     [](const Parameter& a, const Parameter& b) { return a.order < b.order; });
    current.store(v.get(), std::memory_order_release);
    made_at.store(registered, std::memory_order_release);
    tables.push_back(std::move(v));
  }
  return *current.load(std::memory_order_acquire);
}

std::string_view Parameter::name() const {
  if (!record_name.empty()) return record_name;
  const auto dot = key.rfind('.');
  return dot == std::string_view::npos ? key : key.substr(dot + 1);
}

const Parameter* find_parameter(std::string_view key) {
  const auto all = parameters();
  const auto found =
      std::find_if(all.begin(), all.end(), [&](const Parameter& p) { return p.key == key; });
  return found == all.end() ? nullptr : &*found;
}

std::size_t index_of(std::string_view key) {
  const auto* parameter = find_parameter(key);
  if (!parameter) throw std::logic_error(fmt::format("no parameter '{}'", key));
  return static_cast<std::size_t>(parameter - parameters().data());
}

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

Value default_of(const Parameter& parameter, std::span<const Value> cell) {
  return parameter.fallback.empty() && parameter.derive ? parameter.derive(cell)
                                                        : default_values(parameter).front();
}

bool recorded_in(const Parameter& parameter, const CellValues& values) {
  if (parameter.order < Parameter::kRegisteredAtRunTime) return true;
  const auto* algorithm = algorithms::registered_algorithm(values.word("algorithm.name"));
  return algorithm && algorithms::declares(algorithm->options, parameter.key);
}

std::optional<std::string> no_effect(const Parameter& parameter, const CellValues& values) {
  // An algorithm this process has not registered (a Python class, named by
  // the record of an output read here): nothing is known of its options.
  if (const auto* algorithm = algorithms::registered_algorithm(values.word("algorithm.name"))) {
    if (const auto* owner = algorithms::owner_of(parameter.key);
        owner && !algorithms::declares(algorithm->options, parameter.key)) {
      return fmt::format("it is {}'s option", owner->owner);
    }
    for (const auto& ignored : algorithm->ignores) {
      if (ignored.key == parameter.key) return std::string(ignored.why);
    }
  }
  if (family_parameter(parameter)) {
    const auto& family = *families::find_family(values.word("instance.rewards"));
    if (!declares(family, parameter.name())) {
      std::string owners;
      for (const auto* other : families::all_families()) {
        if (declares(*other, parameter.name())) {
          owners += (owners.empty() ? "" : " and ") + std::string(other->display());
        }
      }
      return fmt::format("{} rewards have no {}: it is a parameter of {} rewards", family.display(),
                         parameter.name(), owners);
    }
  }
  if (parameter.key == "participation.aggregate") {
    const bool every_client =
        values.has("participation.clients")
            ? values.whole("participation.clients") == values.means().table.rows.size()
            : values.real("participation.probability") == 1.0;
    if (every_client) return std::string("every client takes part in every phase");
  }
  return std::nullopt;
}

nlohmann::json to_json(const Value& value) {
  struct {
    nlohmann::json operator()(std::monostate) const { return nullptr; }
    nlohmann::json operator()(double v) const { return v; }
    nlohmann::json operator()(std::uint64_t v) const { return v; }
    nlohmann::json operator()(const std::string& v) const { return v; }
    nlohmann::json operator()(const std::shared_ptr<const GivenMeans>& v) const {
      return v->table.rows;
    }
  } visit;
  return std::visit(visit, value);
}

Value value_from_json(const Parameter& parameter, const nlohmann::json& json,
                      const std::string& means_name) {
  if (json.is_null()) return std::monostate{};
  switch (parameter.type) {
    case ValueType::real:
      return json.get<double>();
    case ValueType::whole:
      return json.get<std::uint64_t>();
    case ValueType::word:
      return json.get<std::string>();
    case ValueType::means: {
      auto means = std::make_shared<GivenMeans>();
      means->table.rows = json.get<std::vector<std::vector<double>>>();
      means->table.row_origin.assign(means->table.rows.size(), means_name);
      means->name = means_name;
      return std::shared_ptr<const GivenMeans>(std::move(means));
    }
  }
  return std::monostate{};
}

CellValues::CellValues(std::vector<Value> values) : values_(std::move(values)) {
  if (values_.size() != parameters().size()) throw std::logic_error("a cell needs every parameter");
}

const GivenMeans& CellValues::means() const {
  return *std::get<std::shared_ptr<const GivenMeans>>(at("instance.means"));
}

nlohmann::json CellValues::to_json() const {
  auto out = nlohmann::json::object();
  const auto table = parameters();
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (table[i].of_cell && recorded_in(table[i], *this)) {
      out[std::string(table[i].name())] = io::to_json(values_[i]);
    }
  }
  return out;
}

CellValues CellValues::from_json(const nlohmann::json& json, const std::string& means_name) {
  CellValues cell;
  const auto table = parameters();
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (!table[i].of_cell) continue;
    // A record written before the parameter existed (an option of an
    // algorithm added since) holds its default.
    const auto found = json.find(std::string(table[i].name()));
    cell.values_[i] = found != json.end() ? value_from_json(table[i], *found, means_name)
                                          : default_values(table[i]).front();
  }
  return cell;
}

}  // namespace pfmab::io
