#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "pfmab/sim/columns.hpp"
#include "pfmab/sim/replication.hpp"

namespace pfmab::io {

// Consecutive replications of one cell, column by column: for each column
// (sim::kColumns), its rows one after another, as the summaries and the
// digest take them. A run's sink copies each result into a block; the
// writer thread summarises the block and packs its rows into the output's
// records (RowRecords). A block is reused: once grown to the largest cell,
// filling it allocates nothing.
struct RowBlock {
  std::size_t cell = 0;
  std::size_t checkpoints = 0;
  std::size_t clients = 0;
  std::size_t rows = 0;
  sim::ColumnVectors values;  // per column, in table order: [rows, width]
  // Per row, the time it took (ReplicationResult::used), for rows computed
  // in this process or sent by another; none for rows read back from a
  // file, which keeps a cell's total only. Not in the rows' records.
  std::vector<sim::TimeUsed> used;

  // Empties the block for rows of `cell`.
  void reset(std::size_t cell_index, std::size_t checkpoint_count, std::size_t client_count);
  void append(const sim::ReplicationResult& result);
  // Appends the rows of `other`, a block of the same cell.
  void append(const RowBlock& other);
  sim::ReplicationResult result(std::size_t row) const;
  // The time of row `row`, nothing measured if the block has none.
  sim::TimeUsed used_by(std::size_t row) const {
    return row < used.size() ? used[row] : sim::TimeUsed{};
  }

  // Calls visit(column, values) for every column and its values.
  template <class Visit>
  void for_each_column(Visit&& visit) const {
    sim::for_each_column(values, visit);
  }
  // The values in a row of `column` (sim::Column::count).
  template <class Column>
  std::size_t width(const Column& column) const {
    return column.count(checkpoints, clients);
  }

  // The block appended to `bytes`, and read back from them, for another
  // process of the same build (the ranks of one MPI job: same layout and
  // byte order). read_bytes throws std::runtime_error if they do not hold
  // exactly one block.
  void write_bytes(std::vector<char>& bytes) const;
  static RowBlock read_bytes(std::span<const char> bytes);

  // Row `row` of a [rows, width] column's values.
  template <class T>
  static std::span<const T> row_of(std::span<const T> values, std::size_t width, std::size_t row) {
    return values.subspan(row * width, width);
  }
};

}  // namespace pfmab::io
