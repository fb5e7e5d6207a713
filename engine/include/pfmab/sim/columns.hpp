#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "pfmab/sim/replication.hpp"
#include "pfmab/sim/trajectory.hpp"

namespace pfmab::sim {

// How many values of a column one replication gives.
enum class Width {
  checkpoints,  // one per checkpoint of the cell's grid
  clients,      // one per client
  one,          // a single value (a scalar field of the output's records)
};

// What the output file summarises of a column over a cell's replications.
enum class Summary {
  none,
  // the output's summary of it (mean, std, 95% interval, median, 5% and 95%
  // quantiles) at every checkpoint: io::CellSummary
  statistics,
};

// A field's values: a vector's elements, or the field itself.
template <class Field>
struct FieldValues {
  using type = Field;
  static constexpr bool vector = false;
};
template <class T>
struct FieldValues<std::vector<T>> {
  using type = T;
  static constexpr bool vector = true;
};

// One per-replication output: the field of ReplicationResult (or of its
// Series) that holds it, and how the output stores and summarises it.
template <class Owner, class Field>
struct Column {
  using Element = typename FieldValues<Field>::type;  // the dataset's element type
  static constexpr bool kVector = FieldValues<Field>::vector;

  const char* name;  // its field of the output's records, and its summary series
  Field Owner::*field;
  Width width;
  Summary summary;

  // The field in `result` (a ReplicationResult, const or not).
  template <class Result>
  auto& of(Result& result) const {
    if constexpr (std::is_same_v<Owner, Series>) {
      return result.series.*field;
    } else {
      return result.*field;
    }
  }
  // Its values in `result`, a single one as a span of one.
  std::span<const Element> values(const ReplicationResult& result) const {
    if constexpr (kVector) {
      return of(result);
    } else {
      return {&of(result), 1};
    }
  }
  // Sets the field in `result` to `row`, as many values as values() gives.
  void assign(ReplicationResult& result, std::span<const Element> row) const {
    if constexpr (kVector) {
      of(result).assign(row.begin(), row.end());
    } else {
      of(result) = row[0];
    }
  }
  // Values per replication in a cell of `checkpoints` checkpoints and
  // `clients` clients.
  std::size_t count(std::size_t checkpoints, std::size_t clients) const {
    return width == Width::checkpoints ? checkpoints : width == Width::clients ? clients : 1;
  }
  // One value is not a vector's, and only series are summarised.
  constexpr bool consistent() const {
    return kVector == (width != Width::one) &&
           (summary == Summary::none || width == Width::checkpoints);
  }
};

// Deduces a column's types from its field (clang 15, of the fuzz build,
// deduces no aggregate's template arguments by itself).
template <class Owner, class Field>
Column(const char*, Field Owner::*, Width, Summary) -> Column<Owner, Field>;

// Every per-replication output, once (docs/outputs.md). The row
// blocks, the output file's records (their fields' names, shapes and types), its
// reader and writer, the summaries, shard merges and the test fixtures
// iterate this table; adding a column is adding a line.
//
// The digest of a result takes each column's values in this order, one
// Digest::add per column: reordering the table changes every digest.
inline constexpr std::tuple kColumns{
    Column{"regret", &Series::regret, Width::checkpoints, Summary::statistics},
    Column{"local_reward", &Series::local_reward, Width::checkpoints, Summary::statistics},
    Column{"global_reward", &Series::global_reward, Width::checkpoints, Summary::statistics},
    Column{"mixed_reward", &Series::mixed_reward, Width::checkpoints, Summary::statistics},
    Column{"comm_count", &Series::comm_count, Width::checkpoints, Summary::statistics},
    Column{"phases", &ReplicationResult::phases, Width::one, Summary::none},
    Column{"exploration_pulls", &ReplicationResult::exploration_pulls, Width::one, Summary::none},
    Column{"fixed_arm", &ReplicationResult::fixed_arm, Width::clients, Summary::none},
    Column{"fixed_optimal", &ReplicationResult::fixed_optimal, Width::clients, Summary::none},
    Column{"fixation_slot", &ReplicationResult::fixation_slot, Width::one, Summary::none},
};
inline constexpr std::size_t kColumnCount = std::tuple_size_v<decltype(kColumns)>;

// The element type of a column (for decltype(column) in a visitor).
template <class C>
using ElementOf = typename std::remove_cvref_t<C>::Element;

// Calls visit(column) for every column, in table order.
template <class Visit>
constexpr void for_each_column(Visit&& visit) {
  std::apply([&](const auto&... column) { (visit(column), ...); }, kColumns);
}

namespace detail {
template <class PerColumn, class Visit, std::size_t... I>
constexpr void for_each_column(PerColumn& per_column, Visit& visit, std::index_sequence<I...>) {
  (visit(std::get<I>(kColumns), std::get<I>(per_column)), ...);
}
}  // namespace detail

// Calls visit(column, values) for every column and its entry in
// `per_column`, a tuple of kColumnCount entries in table order.
template <class PerColumn, class Visit>
constexpr void for_each_column(PerColumn&& per_column, Visit&& visit) {
  detail::for_each_column(per_column, visit, std::make_index_sequence<kColumnCount>{});
}

static_assert(std::apply([](const auto&... c) { return (c.consistent() && ...); }, kColumns));

// The column named `name`'s place in the table (a misspelt name does not
// compile).
consteval std::size_t column_index(std::string_view name) {
  std::size_t index = 0, found = kColumnCount;
  for_each_column([&](const auto& column) {
    if (column.name == name) found = index;
    ++index;
  });
  return found < kColumnCount ? found : throw "no such column";
}

template <class Columns>
struct VectorsOf;
template <class... C>
struct VectorsOf<const std::tuple<C...>> {
  using type = std::tuple<std::vector<typename C::Element>...>;
};
// One vector of element values per column, in table order.
using ColumnVectors = VectorsOf<decltype(kColumns)>::type;

}  // namespace pfmab::sim
