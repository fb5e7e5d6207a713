#pragma once

// A cell's replications as its output stores them (docs/outputs.md): one
// dataset, `replications`, of a record per replication, a field per column
// of sim::kColumns (named as the column, in table order) holding that
// column's values in the replication: a scalar for a column of one value,
// an array of the cell's checkpoints or clients otherwise. h5py reads a
// field as a column: `f["cells/0000/replications"]["regret"]`, [R, C].
//
// One dataset of records, not one per column: HDF5 spends a fixed time on
// every dataset it creates, opens, extends and flushes, about 0.15 ms per
// dataset and cell written, so ten datasets made a sweep of short cells
// cost milliseconds per cell whatever its replications (bench/README.md,
// "Writer against cells").

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "pfmab/io/row_block.hpp"
#include "pfmab/sim/columns.hpp"

#include "io/hdf5.hpp"

namespace pfmab::io {

class RowRecords {
 public:
  // The records of a cell of `checkpoints` checkpoints and `clients` clients.
  RowRecords(std::size_t checkpoints, std::size_t clients);

  // The record's HDF5 compound type: native, packed, its fields in table
  // order. Made by HDF5, so only on the thread that calls HDF5; packing and
  // unpacking need no HDF5 (a worker thread filters a chunk: filter_chunk).
  h5::Handle type() const;
  std::size_t size() const { return size_; }  // bytes of a record

  // Rows [first, first + rows) of `block` appended to `records`.
  void pack(const RowBlock& block, std::size_t first, std::size_t rows,
            std::vector<std::byte>& records) const;
  // The rows of `records` (whole records) appended to `block`, a block of a
  // cell of this shape.
  void unpack(std::span<const std::byte> records, RowBlock& block) const;

 private:
  std::size_t checkpoints_, clients_;
  std::array<std::size_t, sim::kColumnCount> offsets_{};  // of each field in a record
  std::size_t size_ = 0;
};

}  // namespace pfmab::io
