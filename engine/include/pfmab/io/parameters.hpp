#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "pfmab/families/family.hpp"
#include "pfmab/model/means_table.hpp"

namespace pfmab::io {

// An instance's local means as given: a CSV file, or a matrix written inline.
struct GivenMeans {
  model::MeansTable table;
  std::string name;                           // the path as written, or "inline"
  std::optional<std::filesystem::path> file;  // the CSV read, if any
  // Where it was given, as an error message begins: "FILE:LINE:COL: key
  // 'instance.means'" or "--means (key 'instance.means')".
  std::string given_at;
};

// One value of a parameter. A parameter without a value (no default, none
// given: participation.clients when q is given) holds std::monostate.
using Value = std::variant<std::monostate, double, std::uint64_t, std::string,
                           std::shared_ptr<const GivenMeans>>;

enum class ValueType {
  real,   // a number
  whole,  // a whole number, exact up to 2^62 (1e6 is fine)
  word,   // one of a parameter's words
  means,  // a CSV path or a matrix of local means
};

// What a key of an experiment is. Each parameter is declared once, in
// parameters(); the experiment file's reader, the command line's flags,
// validation, the canonical form, the output's attributes and the report
// are all driven by that declaration.
struct Parameter {
  std::string_view key;  // dotted TOML key, e.g. "algorithm.lambda"
  // Where the key sits in sweep order (see parameters()). A cell's position
  // in the sweep is part of its random streams' keys, so the keys that came
  // before the algorithm interface keep the places they had (10, 20, ...);
  // a new algorithm's options need none: they follow, in registration order.
  unsigned order = kAfterEveryBuiltInKey;
  static constexpr unsigned kAfterEveryBuiltInKey = 1000;
  // An algorithm registered at run time (algorithms::register_algorithm,
  // a Python class) comes after every compiled-in one, so that registering
  // it moves no parameter, and its options are recorded only in its own
  // cells (recorded_in), so that it changes no other experiment's record.
  static constexpr unsigned kRegisteredAtRunTime = 2000;
  std::string_view flags;  // the command line's names, e.g. "--horizon,-T"; "" for none
  ValueType type = ValueType::real;
  // The default as its flag would spell it; "" for none (then `derive`, or
  // no value).
  std::string_view fallback;
  bool sweeps = false;  // may hold a list: one cell per value
  // A cell's parameter, or the experiment's (seed, replications: one value
  // for every cell, kept out of a cell's record).
  bool of_cell = true;
  std::string_view help;
  // The least and largest whole value accepted (whole only).
  std::uint64_t least = 0;
  std::uint64_t most = std::uint64_t{1} << 62;
  // Refuses a value outside the parameter's domain: throws UserError saying
  // why, without the place (the reader adds it). nullptr: any value of the
  // type.
  void (*check)(const Value&) = nullptr;
  // The value when none is given and there is no fallback, from the cell's
  // other values; nullptr: none.
  Value (*derive)(std::span<const Value> cell) = nullptr;
  // The cell's value's name in the canonical form and the output's
  // attributes; "" for the key's last part.
  std::string_view record_name;

  std::string_view name() const;  // record_name, or the key's last part
};

// Every parameter, the engine's and every registered algorithm's options
// (algorithms/registry.hpp), in sweep order: a sweep's cells are the
// cartesian product of the sweeping parameters' lists, the first outermost,
// and a cell's position in it is part of every random stream's key, so this
// order is part of the results. An algorithm registered at run time appends
// its options; a span taken before stays valid, without them.
std::span<const Parameter> parameters();

// The parameter of `key`, or nullptr.
const Parameter* find_parameter(std::string_view key);
// Its position in parameters(); the key must exist.
std::size_t index_of(std::string_view key);

// One value of `parameter` written as its flag takes it, checked: throws
// UserError saying what is wrong, without the place.
Value parse_value(const Parameter& parameter, std::string_view text);
// A sweeping parameter's list, or another's one value, from its default
// (std::monostate without one).
std::vector<Value> default_values(const Parameter& parameter);

// The value `parameter` takes in a cell that gives none: its default, or
// what it derives from the cell's other values.
Value default_of(const Parameter& parameter, std::span<const Value> cell);

// The key of a reward family's parameter: "instance.sigma".
std::string family_parameter_key(const families::FamilyParameter& parameter);

class CellValues;
// Whether the record of the cell of `values` (its canonical form, its
// output attributes) holds `parameter`: every parameter but the options of
// an algorithm registered at run time, which only that algorithm's cells
// hold.
bool recorded_in(const Parameter& parameter, const CellValues& values);
// Why `parameter` has no effect on the cell of `values`, e.g. "it is
// PF-UCB's option" or "it never pays for communication" (another algorithm's
// option, a key the cell's algorithm ignores: algorithms/registry.hpp; how
// the server averages when every client takes part); nullopt where it has
// one.
std::optional<std::string> no_effect(const Parameter& parameter, const CellValues& values);

// A value's JSON form: a number, a word, the matrix of means, or null.
nlohmann::json to_json(const Value& value);
// The value `parameter` records for `json` (the inverse of to_json; means
// come back inline, named `name`).
Value value_from_json(const Parameter& parameter, const nlohmann::json& json,
                      const std::string& means_name = "inline");

// The values of one cell, one per parameter in parameters() order (a cell
// made before an algorithm was registered at run time has none of its
// options: size() says how many it has).
class CellValues {
 public:
  CellValues() : values_(parameters().size()) {}
  explicit CellValues(std::vector<Value> values);

  const Value& at(std::string_view key) const { return values_.at(index_of(key)); }
  Value& at(std::string_view key) { return values_.at(index_of(key)); }
  std::span<const Value> all() const { return values_; }
  std::size_t size() const { return values_.size(); }

  double real(std::string_view key) const { return std::get<double>(at(key)); }
  std::uint64_t whole(std::string_view key) const { return std::get<std::uint64_t>(at(key)); }
  const std::string& word(std::string_view key) const { return std::get<std::string>(at(key)); }
  const GivenMeans& means() const;
  bool has(std::string_view key) const { return !std::holds_alternative<std::monostate>(at(key)); }

  // {name: value} for every parameter of a cell (null: no value): the
  // cell's part of the canonical form, and of the output's attributes.
  nlohmann::json to_json() const;
  // The inverse, for a record of this version of pfmab.
  static CellValues from_json(const nlohmann::json& json, const std::string& means_name);

 private:
  std::vector<Value> values_;
};

}  // namespace pfmab::io
