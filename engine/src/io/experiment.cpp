#include "pfmab/io/experiment.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <sstream>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/families/family.hpp"
#include "pfmab/model/means_table.hpp"
#include "pfmab/util/checked.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/limits.hpp"
#include "pfmab/util/parse.hpp"

#include "io/experiment_file.hpp"

namespace pfmab::io {
namespace {

// One block of the sweep: every parameter's list, and the groups of
// parameters (their indices in parameters()) whose lists advance together.
struct SweepBlock {
  std::vector<std::vector<Value>> lists;
  std::vector<std::vector<std::size_t>> zips;
  // Per parameter, the [[sweep]] block (from 1) whose own key gave its list;
  // 0 where the top level, a flag or the default did, which every block
  // shares.
  std::vector<std::size_t> given_by;

  // The axes of its product, in parameters() order, the last turning
  // fastest: each parameter on its own, or a zip group at its first key.
  std::vector<std::vector<std::size_t>> axes() const {
    std::vector<std::vector<std::size_t>> out;
    for (std::size_t k = 0; k < lists.size(); ++k) {
      const auto zip = std::find_if(zips.begin(), zips.end(), [&](const auto& group) {
        return std::find(group.begin(), group.end(), k) != group.end();
      });
      if (zip == zips.end()) {
        out.push_back({k});
      } else if (zip->front() == k) {
        out.push_back(*zip);
      }
    }
    return out;
  }
  std::uint64_t replications() const {
    return std::get<std::uint64_t>(lists[index_of("replications")].front());
  }
};

// Refuses a sweep larger than the machine can hold or pfmab can count:
// cells, the means held with them, and replications in all
// (docs/limits.md); counted before the duplicates are removed.
void check_sweep_size(const Experiment& experiment, const std::vector<SweepBlock>& blocks) {
  std::uint64_t cells = 0, replications = 0;  // saturated: more than can be counted
  std::uint64_t largest = 0;                  // M K of the largest instance
  for (const auto& block : blocks) {
    std::uint64_t product = 1;
    for (const auto& axis : block.axes()) {
      product = saturating_mul(product, block.lists[axis.front()].size());
    }
    cells = saturating_add(cells, product);
    replications = saturating_add(replications, saturating_mul(product, block.replications()));
    for (const auto& value : block.lists[index_of("instance.means")]) {
      const auto& rows = std::get<std::shared_ptr<const GivenMeans>>(value)->table.rows;
      largest = std::max<std::uint64_t>(largest, rows.size() * rows.front().size());
    }
  }
  if (cells > limits::max_cells) {
    throw UserError(fmt::format(
        "{}: the sweep has {} cells (the product of the lengths of its lists, over its blocks); "
        "at most {} are accepted: split it into several experiments",
        experiment.source, cells == saturated ? "more than 2^64" : fmt::to_string(cells),
        limits::max_cells));
  }
  if (cells * largest > limits::max_sweep_means) {
    throw UserError(fmt::format(
        "{}: {} cells of up to {} means each hold more than {} means in memory: split the sweep",
        experiment.source, cells, largest, limits::max_sweep_means));
  }
  if (replications > limits::max_replications) {
    const auto each = blocks.size() == 1 ? fmt::to_string(blocks.front().replications())
                                         : std::string("their blocks'");
    throw UserError(
        fmt::format("{}: {} cells x {} replications is above 2^62, the most "
                    "replications pfmab counts",
                    experiment.source, cells, each));
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
        sim::parse_aggregation(v.word("participation.aggregate"))};
    spec.checkpoints = {v.whole("checkpoints.log_points"), v.whole("checkpoints.linear_points")};
    spec.fidelity = sim::parse_fidelity(v.word("mode"));
    return spec;
  }

 private:
  std::shared_ptr<const model::Instance> instance(const CellValues& v) {
    const auto* means = &v.means();
    const auto& name = v.word("instance.rewards");
    std::vector<double> values;
    for (const auto& parameter : families::find_family(name)->parameters()) {
      values.push_back(v.real(family_parameter_key(parameter)));
    }
    const auto key = std::make_tuple(means, name, values);
    auto& instance = instances_[key];
    if (!instance) {
      try {
        instance = std::make_shared<const model::Instance>(means->table,
                                                           families::RewardFamily(name, values));
      } catch (const UserError& e) {
        throw UserError(fmt::format("{}: {}", means->given_at, e.what()));
      }
    }
    return instance;
  }

  std::map<std::tuple<const GivenMeans*, std::string, std::vector<double>>,
           std::shared_ptr<const model::Instance>>
      instances_;
};

// A value as a message shows it: a word as it is written.
std::string shown(const Value& value);

// The cells refused in a sweep of `made` and `refused` (each with why), each
// named by the keys whose values tell the sweep's cells apart, the means by
// their name; by its algorithm, alpha, horizon and schedule where no key
// does.
// A cell of the sweep refused, and why: `placed`, the message names the
// file and key it comes from (the means' errors).
struct Refusal {
  CellValues values;
  std::string why;
  bool placed = false;
};

std::vector<RefusedCell> name_refused(std::span<const CellValues> made,
                                      const std::vector<Refusal>& refused) {
  std::vector<const CellValues*> all;
  for (const auto& cell : made) all.push_back(&cell);
  for (const auto& cell : refused) all.push_back(&cell.values);
  std::vector<std::size_t> varied;
  for (std::size_t k = 0; k < parameters().size(); ++k) {
    if (!parameters()[k].of_cell) continue;
    std::set<std::string> seen;
    for (const auto* cell : all) {
      if (k < cell->size() && cell->has(parameters()[k].key)) {
        seen.insert(parameters()[k].type == ValueType::means ? cell->means().name
                                                             : shown(cell->all()[k]));
      }
    }
    if (seen.size() > 1) varied.push_back(k);
  }
  if (varied.empty()) {
    for (const auto key : {"algorithm.name", "alpha", "horizon", "algorithm.schedule"}) {
      varied.push_back(index_of(key));
    }
  }
  std::vector<RefusedCell> out;
  for (const auto& [cell, why, placed] : refused) {
    std::string name;
    for (const auto k : varied) {
      const auto& parameter = parameters()[k];
      if (k >= cell.size() || !cell.has(parameter.key)) continue;
      name += fmt::format(
          "{}{} {}", name.empty() ? "" : ", ", parameter.name(),
          parameter.type == ValueType::means ? cell.means().name : shown(cell.all()[k]));
    }
    out.push_back({cell.to_json(), std::move(name), why});
  }
  return out;
}

// The refused cells as a message lists them: `most` of them, then how many
// more, separated by `separator`.
std::string listed(std::span<const RefusedCell> refused, std::size_t most,
                   std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < std::min(most, refused.size()); ++i) {
    out += fmt::format("{}({}) {}", i == 0 ? "" : separator, refused[i].name, refused[i].why);
  }
  if (refused.size() > most) out += fmt::format("{}and {} more", separator, refused.size() - most);
  return out;
}

// Throws UserError naming the refused cells, unless the others run (`skip`)
// and some are left.
void refuse_unless_skipped(const Experiment& experiment, bool skip,
                           const std::string& shown_source) {
  constexpr std::size_t most = 10;  // an error names this many, validate's notes every one
  const auto& refused = experiment.refused;
  const auto total = refused.size() + experiment.cells.size();
  if (experiment.cells.empty()) {
    throw UserError(fmt::format("{}: {} refused: {}", shown_source,
                                total == 1 ? "its cell is" : fmt::format("all {} cells are", total),
                                listed(refused, most, "; ")));
  }
  if (!skip) {
    throw UserError(
        fmt::format("{}: {} of {} cells {} refused: {}; to run the others, set skip_refused = true "
                    "(--skip-refused){}",
                    shown_source, refused.size(), total, refused.size() == 1 ? "is" : "are",
                    listed(refused, most, "; "),
                    refused.size() > most ? "; validate --skip-refused lists every one" : ""));
  }
}

// Records the refused cells a run skips: in the canonical form (so in the
// output) and in the notes.
void record_skipped(Experiment& experiment) {
  const auto& refused = experiment.refused;
  add_refused(experiment.canonical, refused);
  experiment.notes.push_back(fmt::format("{} of {} cells refused, skipped (skip_refused):\n    {}",
                                         refused.size(), refused.size() + experiment.cells.size(),
                                         listed(refused, refused.size(), "\n    ")));
}

std::string shown(const Value& value) {
  if (const auto* word = std::get_if<std::string>(&value)) return *word;
  return to_json(value).dump();
}

// Calls visit(values) with each combination of the block's lists, in sweep
// order (the last axis turning fastest), derived values filled in.
template <class Visit>
void for_each_combination(const SweepBlock& block, Visit&& visit) {
  const auto axes = block.axes();
  std::vector<std::size_t> at(axes.size(), 0);
  while (true) {
    std::vector<Value> values(block.lists.size());
    for (std::size_t a = 0; a < axes.size(); ++a) {
      for (const auto k : axes[a]) values[k] = block.lists[k][at[a]];
    }
    for (std::size_t k = 0; k < values.size(); ++k) {
      const auto& parameter = parameters()[k];
      if (parameter.derive && std::holds_alternative<std::monostate>(values[k])) {
        values[k] = parameter.derive(values);
      }
    }
    visit(std::move(values));
    std::size_t a = axes.size();
    while (a > 0 && ++at[a - 1] == block.lists[axes[a - 1].front()].size()) at[--a] = 0;
    if (a == 0) return;
  }
}

// The cells of a sweep, each made once. A combination's keys that have no
// effect on its cell (parameters.hpp, no_effect) take their default, so a
// key is not crossed with an algorithm that has no use for it, and a
// combination equal to a cell made before is not made again. It remembers
// what it reset, for validate's notes, and refuses a key given a value that
// no cell has a use for: a block's own value, no cell of that block.
class CellSet {
 public:
  // The cell of `values`, a combination of `block`'s lists, what it has no
  // use for reset; nullopt if it is one made before.
  std::optional<CellValues> add(std::vector<Value> values, const SweepBlock& block) {
    const auto& given_by = block.given_by;
    CellValues cell(std::move(values));
    const auto all = parameters();
    // Derived keys last: their defaults read the others' (q's reads S's).
    for (const bool derived : {false, true}) {
      for (std::size_t k = 0; k < all.size(); ++k) {
        if (!all[k].of_cell || (all[k].derive != nullptr) != derived) continue;
        const auto why = no_effect(all[k], cell);
        if (!why) {
          used_.insert({k, given_by[k]});
          continue;
        }
        auto& value = cell.at(all[k].key);
        const auto fallback = default_of(all[k], cell.all());
        if (value == fallback) continue;
        // q when S is what was given; a value derived from another key
        // (c_B from the preset), not the user's: reset without a note
        if (std::holds_alternative<std::monostate>(value) ||
            std::holds_alternative<std::monostate>(block.lists[k].front())) {
          value = fallback;
          continue;
        }
        const auto& algorithm = cell.word("algorithm.name");
        for (auto* reset : {&reset_[k], &reset_where_[{k, given_by[k]}]}) {
          if (reset->algorithms.empty()) *reset = {{}, *why, shown(value)};
          if (std::find(reset->algorithms.begin(), reset->algorithms.end(), algorithm) ==
              reset->algorithms.end()) {
            reset->algorithms.push_back(algorithm);
          }
        }
        value = fallback;
      }
    }
    if (!seen_.insert(identity(cell)).second) {
      ++repeats_;
      return std::nullopt;
    }
    return cell;
  }

  // What validate says of the sweep's shape: each key not crossed with an
  // algorithm, and the combinations not made. Throws UserError for a key
  // given a value no cell has a use for.
  std::vector<std::string> notes(const std::string& source) const {
    for (const auto& [where, reset] : reset_where_) {
      if (used_.count(where)) continue;
      const auto& [k, block] = where;
      throw UserError(
          fmt::format("{}: {}{} '{}' has no effect on any cell{} ({}: {}); leave it out", source,
                      block ? fmt::format("[[sweep]] block {}: ", block) : std::string(),
                      parameters()[k].name(), reset.value, block ? " of the block" : "",
                      join(reset.algorithms), reset.why));
    }
    std::vector<std::string> out;
    for (const auto& [k, reset] : reset_) {
      out.push_back(fmt::format("{} has no effect on {} ({}): not crossed with {}",
                                parameters()[k].name(), join(reset.algorithms), reset.why,
                                reset.algorithms.size() == 1 ? "it" : "them"));
    }
    if (repeats_ > 0) {
      out.push_back(
          fmt::format("{} combination{} of the sweep repeat{} a cell made before: made "
                      "once",
                      repeats_, repeats_ == 1 ? "" : "s", repeats_ == 1 ? "s" : ""));
    }
    return out;
  }

 private:
  struct Reset {
    std::vector<std::string> algorithms;  // whose cells it was reset in
    std::string why;                      // the first's reason
    std::string value;                    // the first value reset, as given
  };

  static std::string join(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& word : words) out += (out.empty() ? "" : ", ") + word;
    return out;
  }

  // What tells two cells apart: every value of the cell's record, the means
  // by content (two blocks read the same file into two tables) and name.
  std::string identity(const CellValues& cell) {
    std::string key;
    const auto all = parameters();
    for (std::size_t k = 0; k < all.size(); ++k) {
      if (!all[k].of_cell) continue;
      if (const auto* means = std::get_if<std::shared_ptr<const GivenMeans>>(&cell.all()[k])) {
        key += fmt::format("{}\x1f", instance_number(**means));
      } else {
        key += to_json(cell.all()[k]).dump() + "\x1f";
      }
    }
    return key;
  }
  std::size_t instance_number(const GivenMeans& means) {
    for (std::size_t i = 0; i < instances_.size(); ++i) {
      if (instances_[i]->name == means.name && instances_[i]->table.rows == means.table.rows) {
        return i;
      }
    }
    instances_.push_back(&means);
    return instances_.size() - 1;
  }

  // (parameter, SweepBlock::given_by) of the values some cell has a use for,
  // and of those reset in some cell
  std::set<std::pair<std::size_t, std::size_t>> used_;
  std::map<std::pair<std::size_t, std::size_t>, Reset>
      reset_where_;                     // per parameter: some cell has a use for it
  std::map<std::size_t, Reset> reset_;  // per parameter reset in some cell
  std::set<std::string> seen_;
  std::vector<const GivenMeans*> instances_;  // distinct, held by the sweep's lists
  std::uint64_t repeats_ = 0;
};

// The games a means flag lists: CSV paths separated by ',' (as every
// sweeping flag's list), inline matrices by '|' (their rows and values
// already use ';' and ','). A path that names an existing file as a whole is
// that one file, commas and all, so that no file that could be read before
// lists were taken is read otherwise now.
std::vector<std::string_view> means_list(std::string_view text, bool inline_means) {
  const char separator = inline_means ? '|' : ',';
  if (!inline_means && text.find(',') != std::string_view::npos) {
    std::error_code error;
    if (std::filesystem::is_regular_file(std::filesystem::path(text), error)) return {text};
  }
  std::vector<std::string_view> parts;
  for (std::size_t n = 1;; ++n) {
    const auto end = text.find(separator);
    const auto part = text.substr(0, end);
    if (part.empty()) {
      throw UserError(
          fmt::format("game {} of the list is empty (got '{}'; games are separated by "
                      "'{}')",
                      n, excerpt(text), separator));
    }
    parts.push_back(part);
    if (end == std::string_view::npos) return parts;
    text.remove_prefix(end + 1);
  }
}

}  // namespace

std::vector<std::uint64_t> Experiment::replications_per_cell() const {
  std::vector<std::uint64_t> out;
  for (std::size_t c = 0; c < cells.size(); ++c) out.push_back(replications(c));
  return out;
}

std::vector<sim::ReplicationRange> Experiment::ranges_of(const sim::Shard& shard) const {
  return sim::shard_ranges(shard, cells, replications_per_cell());
}

std::uint64_t Experiment::total_replications() const {
  std::uint64_t total = 0;
  for (std::size_t c = 0; c < cells.size(); ++c) total += replications(c);
  return total;
}

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
      for (const auto part : means_list(text, inline_means)) {
        auto means = std::make_shared<GivenMeans>();
        means->given_at = fmt::format("{} (key '{}')", flag, parameter.key);
        if (inline_means) {
          means->table = model::parse_inline_means(part);
          means->name = "inline";
        } else {
          means->file = std::filesystem::path(part);
          means->table = model::read_means_csv(*means->file);
          means->name = std::string(part);
        }
        given.values.push_back(std::shared_ptr<const GivenMeans>(std::move(means)));
      }
      return;
    }
    if (text.empty()) throw UserError("give a value");
    if (!parameter.sweeps && text.find(',') != std::string_view::npos) {
      throw UserError(fmt::format("takes one value, not a list (got '{}'){}", excerpt(text),
                                  parameter.key == "replications"
                                      ? "; each [[sweep]] block of a file may give its own"
                                      : ""));
    }
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

namespace {

// An experiment from `read` (an empty one if `from_file` is false: flags
// alone) as `source` names it, with `overrides` laid over it.
Experiment load(const ExperimentFile& read, bool from_file, std::string source,
                const std::vector<FlagValues>& overrides, bool skip_refused);

}  // namespace

nlohmann::json RefusedCell::to_json() const {
  return {{"cell", record}, {"name", name}, {"why", why}};
}

RefusedCell RefusedCell::from_json(const nlohmann::json& json) {
  return {json.at("cell"), json.at("name").get<std::string>(), json.at("why").get<std::string>()};
}

std::string refused_lines(std::span<const RefusedCell> refused) {
  if (refused.empty()) return {};
  auto out = fmt::format("refused, not run (skip_refused): {} cell{}\n", refused.size(),
                         refused.size() == 1 ? "" : "s");
  for (const auto& cell : refused) out += fmt::format("  ({}) {}\n", cell.name, cell.why);
  return out;
}

void add_refused(nlohmann::json& report, std::span<const RefusedCell> refused) {
  if (refused.empty()) return;
  auto& out = report["refused"];
  for (const auto& cell : refused) out.push_back(cell.to_json());
}

Experiment load_experiment(const std::optional<std::filesystem::path>& file,
                           const std::vector<FlagValues>& overrides, bool skip_refused) {
  if (!file) return load(ExperimentFile(), false, "command line", overrides, skip_refused);
  auto experiment = load(ExperimentFile(*file), true, file->string(), overrides, skip_refused);
  experiment.files.insert(experiment.files.begin(), *file);
  return experiment;
}

Experiment load_experiment_text(std::string text, const std::string& name,
                                const std::filesystem::path& directory,
                                const std::vector<FlagValues>& overrides, bool skip_refused) {
  const auto shown = excerpt(name, path_excerpt_chars);
  return load(ExperimentFile(std::move(text), shown, std::filesystem::absolute(directory)), true,
              name, overrides, skip_refused);
}

namespace {

Experiment load(const ExperimentFile& read, bool from_file, std::string source,
                const std::vector<FlagValues>& overrides, bool skip_refused) {
  Experiment experiment;
  experiment.source = std::move(source);
  const auto shown_source = excerpt(experiment.source, path_excerpt_chars);
  experiment.text = read.text();
  if (!overrides.empty() || skip_refused) {
    experiment.text += "\n# command-line overrides\n" + render(overrides) +
                       (skip_refused ? "\nskip_refused = true" : "") + "\n";
  }

  // Every parameter's values: the flag's, else the file's, else the default.
  const auto flag_of = [&](std::string_view key) -> const FlagValues* {
    for (const auto& given : overrides) {
      if (given.parameter->key == key) return &given;
    }
    return nullptr;
  };
  if (!flag_of("instance.means") && !read.node("instance.means")) {
    if (!from_file) {
      throw UserError(
          "no instance given (use --means FILE.csv, --means-inline 'ROWS' or an experiment file)");
    }
    read.fail_missing("instance.means",
                      "is missing (a CSV path relative to the experiment file, or a matrix of "
                      "local means, one row per client)");
  }
  // The top level's lists, then each block's laid over them; a flag
  // overrides both.
  const auto given = [&](const Parameter& parameter, ExperimentFile::Block block) {
    const std::string key(parameter.key);
    if (const auto* flag = flag_of(key)) return flag->values;
    if (read.node(key, block)) return read.values(parameter, block);
    if (block && read.node(key)) return read.values(parameter);
    return default_values(parameter);
  };
  // q and S are two ways of saying who takes part: a block may give one.
  const auto check_participation = [&](ExperimentFile::Block block) {
    constexpr auto both = "give a participation probability q or a number of clients S, not both";
    const auto in_file = [&](std::string_view key) {
      return read.node(key, block) ? read.node(key, block) : read.node(key);
    };
    if (!flag_of("participation.probability") && !in_file("participation.probability")) return;
    if (const auto* clients = flag_of("participation.clients")) {
      throw UserError(fmt::format("{} (key 'participation.clients'): {}", clients->flag, both));
    }
    if (const auto* node = in_file("participation.clients")) {
      read.fail(*node, "participation.clients", both);
    }
  };
  std::vector<SweepBlock> blocks;
  const auto block_of = [&](ExperimentFile::Block block) {
    SweepBlock sweep;
    for (const auto& parameter : parameters()) {
      sweep.lists.push_back(given(parameter, block));
      const bool own = block && !flag_of(parameter.key) && read.node(parameter.key, block);
      sweep.given_by.push_back(own ? *block + 1 : 0);
    }
    check_participation(block);
    const auto zips = read.node("zip", block) ? read.zips(block) : read.zips();
    for (const auto& zip : zips) {
      std::vector<std::size_t> group;
      for (const auto& key : zip.keys) group.push_back(index_of(key));
      std::sort(group.begin(), group.end());
      const auto length = sweep.lists[group.front()].size();
      for (const auto k : group) {
        if (sweep.lists[k].size() == length) continue;
        read.fail(*zip.node, "zip",
                  fmt::format("it pairs {} ({} values) with {} ({} values): zipped lists need "
                              "one length",
                              parameters()[group.front()].key, length, parameters()[k].key,
                              sweep.lists[k].size()));
      }
      sweep.zips.push_back(std::move(group));
    }
    blocks.push_back(std::move(sweep));
  };
  if (read.blocks() == 0) block_of(std::nullopt);
  for (std::size_t b = 0; b < read.blocks(); ++b) block_of(b);
  for (const auto& block : blocks) {
    for (const auto& value : block.lists[index_of("instance.means")]) {
      if (const auto& csv = std::get<std::shared_ptr<const GivenMeans>>(value)->file) {
        experiment.files.push_back(*csv);
      }
    }
  }
  experiment.seed = std::get<std::uint64_t>(blocks.front().lists[index_of("seed")].front());
  check_sweep_size(experiment, blocks);

  // Every block's product, in order, each cell made once.
  experiment.canonical = {{"seed", experiment.seed},
                          {"replications", nlohmann::json::array()},
                          {"cells", nlohmann::json::array()}};
  CellBuilder builder;
  CellSet made;
  std::vector<Refusal> refused;
  for (const auto& block : blocks) {
    for_each_combination(block, [&](std::vector<Value> values) {
      const auto index = experiment.cells.size();
      auto cell = made.add(std::move(values), block);
      if (!cell) return;
      std::optional<sim::CellSpec> spec;
      try {
        spec = builder.spec(*cell);  // the instance's errors name where its means were given
      } catch (const UserError& e) {
        refused.push_back({std::move(*cell), e.what(), true});
        return;
      }
      try {
        experiment.cells.emplace_back(std::move(*spec), index);  // every combined constraint
      } catch (const UserError& e) {
        refused.push_back({std::move(*cell), e.what(), false});
        return;
      }
      experiment.canonical["replications"].push_back(cell->whole("replications"));
      experiment.canonical["cells"].push_back(cell->to_json());
      experiment.values.push_back(std::move(*cell));
    });
  }
  if (!refused.empty()) {
    // the one cell of an experiment refused for its means: their message, as
    // any other bad value's
    if (experiment.cells.empty() && refused.size() == 1 && refused.front().placed) {
      throw UserError(refused.front().why);
    }
    experiment.refused = name_refused(experiment.values, refused);
    refuse_unless_skipped(experiment, skip_refused || read.skip_refused(), shown_source);
  }
  // (after the refusals: a key may have no effect but on a refused cell)
  experiment.notes = made.notes(shown_source);
  if (!experiment.refused.empty()) record_skipped(experiment);
  return experiment;
}

}  // namespace
}  // namespace pfmab::io
