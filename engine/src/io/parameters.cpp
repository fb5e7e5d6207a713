#include "pfmab/io/parameters.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "pfmab/algorithms/algorithm.hpp"
#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/algorithms/schedule.hpp"
#include "pfmab/model/limits.hpp"
#include "pfmab/model/mixed_model.hpp"
#include "pfmab/model/reward_family.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/exploration.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"

namespace pfmab::io {
namespace {

double real_of(const Value& v) { return std::get<double>(v); }
const std::string& word_of(const Value& v) { return std::get<std::string>(v); }

// The checks: each refuses what the model refuses, in the model's words.
void check_alpha(const Value& v) { model::validate_alpha(real_of(v)); }
void check_rewards(const Value& v) { model::parse_reward_kind(word_of(v)); }
void check_sigma(const Value& v) {
  model::RewardFamily{model::RewardKind::gaussian, real_of(v)}.validate();
}
void check_algorithm(const Value& v) { algorithms::parse_algorithm_kind(word_of(v)); }
void check_preset(const Value& v) { algorithms::parse_preset(word_of(v)); }
void check_horizon(const Value& v) { sim::validate_horizon(std::get<std::uint64_t>(v)); }
void check_comm_cost(const Value& v) { sim::validate_comm_cost(real_of(v)); }
void check_schedule(const Value& v) { algorithms::parse_schedule_kind(word_of(v)); }
void check_lambda(const Value& v) {
  algorithms::validate({algorithms::ScheduleKind::constant, real_of(v), 1.0});
}
void check_schedule_factor(const Value& v) {
  algorithms::validate({algorithms::ScheduleKind::doubling, 1.0, real_of(v)});
}
void check_confidence_constant(const Value& v) {
  algorithms::validate_confidence_constant(real_of(v));
}
void check_log_term(const Value& v) {
  if (word_of(v) != "T" && word_of(v) != "MT") {
    throw UserError(fmt::format("'{}' is not T (log T) or MT (log(MT))", excerpt(word_of(v))));
  }
}
void check_lengths(const Value& v) { algorithms::parse_lengths(word_of(v)); }
void check_probability(const Value& v) {
  algorithms::validate(algorithms::Participation{real_of(v), std::nullopt}, 1);
}
void check_aggregate(const Value& v) { algorithms::parse_aggregation(word_of(v)); }
void check_mode(const Value& v) { sim::parse_fidelity(word_of(v)); }

// Absent: each preset's own, 4 for the paper and 1 for the authors' code.
Value derive_confidence_constant(std::span<const Value> cell) {
  const auto preset = algorithms::parse_preset(word_of(cell[index_of("algorithm.preset")]));
  return preset == algorithms::Preset::authors_code ? 1.0 : 4.0;
}
// Absent: the measured alpha (the algorithm is not mis-specified).
Value derive_algorithm_alpha(std::span<const Value> cell) { return cell[index_of("alpha")]; }
// Absent: every client, unless S is given.
Value derive_probability(std::span<const Value> cell) {
  if (std::holds_alternative<std::monostate>(cell[index_of("participation.clients")])) return 1.0;
  return std::monostate{};
}

constexpr std::uint64_t max_points = limits::max_checkpoint_points;

using enum ValueType;

// In sweep order (see parameters()). A derive runs once every parameter has
// its given or default value, so it may read any of them.
// GCC 12 warns of the members a designated initializer leaves to their
// default member initializers, which is what they are for.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const std::array<Parameter, 23> table{{
    {.key = "instance.means", .flags = "--means", .type = means, .sweeps = true,
     .help = "local means: a CSV file (a row per client, a column per arm; '#' comments) or a "
             "matrix",
     .record_name = "means"},
    {.key = "instance.rewards", .flags = "--rewards", .type = word, .fallback = "gaussian",
     .sweeps = true, .help = "reward family: gaussian or bernoulli", .check = check_rewards},
    {.key = "instance.sigma", .flags = "--sigma", .type = real, .fallback = "1", .sweeps = true,
     .help = "Gaussian reward standard deviation (0: noiseless)", .check = check_sigma},
    {.key = "algorithm.name", .flags = "--algorithm", .type = word, .fallback = "pf-ucb",
     .sweeps = true, .help = "pf-ucb, pf-ucb-enhanced, local-ucb, centralized-ucb",
     .check = check_algorithm, .record_name = "algorithm"},
    {.key = "algorithm.preset", .flags = "--preset", .type = word, .fallback = "paper",
     .sweeps = true,
     .help = "PF-UCB's rules: paper (Algorithm 1) or authors-code (the authors' published code)",
     .check = check_preset},
    {.key = "alpha", .flags = "--alpha", .type = real, .fallback = "0,0.2,0.5,0.9,1",
     .sweeps = true, .help = "personalisation weight(s) the regret is measured with",
     .check = check_alpha},
    {.key = "algorithm.alpha", .flags = "--algorithm-alpha", .type = real, .sweeps = true,
     .help = "the alpha the algorithm runs with, if not --alpha (mis-specified)",
     .check = check_alpha, .derive = derive_algorithm_alpha, .record_name = "algorithm_alpha"},
    {.key = "horizon", .flags = "--horizon,-T", .type = whole, .fallback = "1e6", .sweeps = true,
     .help = "horizon T in slots (1e6 is fine)", .most = limits::max_horizon,
     .check = check_horizon},
    {.key = "comm_cost", .flags = "--comm-cost,-C", .type = real, .fallback = "1", .sweeps = true,
     .help = "C: regret per client per exchange (2 exchanges per client per phase)",
     .check = check_comm_cost},
    {.key = "algorithm.schedule", .flags = "--schedule", .type = word, .fallback = "doubling-log",
     .sweeps = true,
     .help = "f(p): doubling-log (2^p log T), constant (lambda), constant-log (lambda log T), "
             "doubling (2^p)",
     .check = check_schedule},
    {.key = "algorithm.lambda", .flags = "--lambda", .type = real, .fallback = "1", .sweeps = true,
     .help = "lambda of the constant schedules", .check = check_lambda},
    {.key = "algorithm.schedule_factor", .flags = "--schedule-factor", .type = real,
     .fallback = "1", .sweeps = true, .help = "a factor multiplying f(p)",
     .check = check_schedule_factor},
    {.key = "algorithm.confidence_constant", .flags = "--confidence-constant", .type = real,
     .sweeps = true, .help = "c_B in B_p = sqrt(c_B L / (M F(p))): 4, or 1 with authors-code",
     .check = check_confidence_constant, .derive = derive_confidence_constant},
    {.key = "algorithm.log_term", .flags = "--log-term", .type = word, .fallback = "T",
     .sweeps = true, .help = "L in B_p: T (log T) or MT (log(MT))", .check = check_log_term},
    {.key = "algorithm.lengths", .flags = "--lengths", .type = word, .fallback = "paper",
     .sweeps = true, .help = "exploration lengths: paper or large-m (Sec. 4 remark)",
     .check = check_lengths},
    {.key = "participation.probability", .flags = "--participation", .type = real,
     .sweeps = true, .help = "q: each client takes part in a phase with probability q",
     .check = check_probability, .derive = derive_probability,
     .record_name = "participation_probability"},
    {.key = "participation.clients", .flags = "--participants", .type = whole, .sweeps = true,
     .help = "S: exactly S clients take part in each phase", .least = 1,
     .record_name = "participation_clients"},
    {.key = "participation.aggregate", .flags = "--aggregate", .type = word, .fallback = "latest",
     .sweeps = true,
     .help = "under partial participation the server averages: latest (every client's last "
             "report) or participants (this phase's only)",
     .check = check_aggregate, .record_name = "participation_aggregate"},
    {.key = "seed", .flags = "--seed", .type = whole, .fallback = "1", .of_cell = false,
     .help = "master seed"},
    {.key = "replications", .flags = "--replications,-R", .type = whole, .fallback = "100",
     .of_cell = false, .help = "replications per cell", .least = 1},
    {.key = "mode", .flags = "--mode", .type = word, .fallback = "aggregated",
     .help = "aggregated (one draw per arm and run, cost independent of T) or per-pull (one draw "
             "per pull)",
     .check = check_mode},
    {.key = "checkpoints.log_points", .type = whole, .fallback = "40",
     .help = "log-spaced slots at which the series are recorded", .most = max_points},
    {.key = "checkpoints.linear_points", .type = whole, .fallback = "20",
     .help = "evenly spaced slots at which the series are recorded", .most = max_points},
}};
#pragma GCC diagnostic pop

}  // namespace

std::span<const Parameter> parameters() { return table; }

std::string_view Parameter::name() const {
  if (!record_name.empty()) return record_name;
  const auto dot = key.rfind('.');
  return dot == std::string_view::npos ? key : key.substr(dot + 1);
}

const Parameter* find_parameter(std::string_view key) {
  const auto found = std::find_if(table.begin(), table.end(),
                                  [&](const Parameter& p) { return p.key == key; });
  return found == table.end() ? nullptr : &*found;
}

std::size_t index_of(std::string_view key) {
  const auto* parameter = find_parameter(key);
  if (!parameter) throw std::logic_error(fmt::format("no parameter '{}'", key));
  return static_cast<std::size_t>(parameter - table.data());
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
  if (values_.size() != table.size()) throw std::logic_error("a cell needs every parameter");
}

const GivenMeans& CellValues::means() const {
  return *std::get<std::shared_ptr<const GivenMeans>>(at("instance.means"));
}

nlohmann::json CellValues::to_json() const {
  auto out = nlohmann::json::object();
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].of_cell) out[std::string(table[i].name())] = io::to_json(values_[i]);
  }
  return out;
}

CellValues CellValues::from_json(const nlohmann::json& json, const std::string& means_name) {
  CellValues cell;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (!table[i].of_cell) continue;
    cell.values_[i] = value_from_json(table[i], json.at(std::string(table[i].name())), means_name);
  }
  return cell;
}

}  // namespace pfmab::io
