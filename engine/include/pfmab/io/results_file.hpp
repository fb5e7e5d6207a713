#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "pfmab/io/experiment.hpp"
#include "pfmab/io/hdf5.hpp"
#include "pfmab/io/report.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/replication.hpp"
#include "pfmab/theory/bounds.hpp"

namespace pfmab::io {

// An exclusive lock on an output file, held while this object lives. An OFD
// fcntl lock: HDF5's own flock-based locking, which readers use, is
// independent of it, so h5py can read a file while a run holds this.
class OutputLock {
 public:
  OutputLock() = default;
  // Throws UserError if another process holds it.
  explicit OutputLock(const std::filesystem::path& path);
  OutputLock(OutputLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  OutputLock& operator=(OutputLock&& other) noexcept;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  ~OutputLock();

 private:
  int fd_ = -1;
};

// The HDF5 output of a run (layout in README.md, "The output file"): root
// attributes for provenance, then cells/NNNN/ per cell with its parameters,
// means, checkpoints, per-replication datasets (row r = replication r), the
// count of complete rows (replications_done) and, once the cell is complete,
// summary/<series>/{mean,std,ci95_low,ci95_high,median,q05,q95}.
//
// The writer streams rows in replication order under HDF5's single-writer /
// multiple-reader mode, so h5py can read the file while it grows and after
// the writer is killed at any moment. A row counts once replications_done
// covers it; replications_done is written only after the rows are flushed.
class ResultsWriter {
 public:
  // Creates `path`, or continues it if it holds the same experiment (same
  // canonical form): then done(c) rows of every cell are kept. Throws
  // UserError, leaving the file as it was, if it holds anything else (unless
  // `overwrite`) or another process is writing it.
  ResultsWriter(const std::filesystem::path& path, const Experiment& experiment,
                std::span<const sim::Cell> cells, bool overwrite);
  ~ResultsWriter();  // flushes, then closes
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  std::uint64_t done(std::size_t cell) const {
    return written_[cell] + (cell == buffer_cell_ ? buffer_.size() : 0);
  }
  bool resumed() const { return resumed_; }

  // Appends `result` as replication done(cell) of `cell`. Rows are buffered
  // and written in blocks; they become durable at the next flush, which
  // happens by itself every half second. The row that completes a cell is
  // flushed at once and the cell's summary datasets are written.
  void append(std::size_t cell, sim::ReplicationResult result);
  // Writes the buffered rows, flushes them, then records them as done.
  void flush();
  // Flushes, and writes the summary datasets of every complete cell that
  // has none yet (cells completed by an earlier, interrupted run).
  void write_summaries();

 private:
  void write_buffer();
  void summarize(std::size_t cell);

  OutputLock lock_;
  h5::Handle file_;
  std::vector<std::string> groups_;       // cells/NNNN
  std::vector<std::size_t> clients_;      // per cell
  std::vector<std::size_t> checkpoints_;  // per cell
  std::vector<std::uint64_t> written_;    // rows in the datasets, per cell
  std::vector<std::uint64_t> committed_;  // rows recorded in replications_done
  std::vector<bool> summarized_;          // summary datasets written by this writer
  std::uint64_t replications_;
  bool resumed_ = false;
  // rows of one cell not yet written, dataset by dataset (see row_datasets)
  std::size_t buffer_cell_ = 0;
  std::vector<sim::ReplicationResult> buffer_;
  std::vector<h5::Handle> row_sets_;  // buffer_cell_'s per-replication datasets, open
  std::chrono::steady_clock::time_point last_flush_;
};

// What a cell's group says about it.
struct StoredCell {
  std::string name;  // the group, e.g. "cells/0003"
  std::string algorithm, rewards, schedule, schedule_formula, instance, mode;
  theory::Bounds bounds;
  double alpha = 0.0;
  std::uint64_t horizon = 0;
  std::size_t clients = 0, arms = 0;
  std::vector<std::uint64_t> checkpoints;
  std::uint64_t done = 0;  // complete replications
};

// Reads an output file, also while a run is writing it (SWMR read).
class ResultsReader {
 public:
  // Throws UserError if `path` is missing or not a pfmab output.
  explicit ResultsReader(const std::filesystem::path& path);

  std::string attribute(const std::string& name) const;
  std::uint64_t seed() const;
  std::uint64_t replications() const;  // asked per cell
  const std::vector<StoredCell>& cells() const { return cells_; }
  // Replications [first, first + count) of cell `cell`.
  std::vector<sim::ReplicationResult> read(std::size_t cell, std::uint64_t first,
                                           std::uint64_t count) const;

 private:
  h5::Handle file_;
  std::vector<StoredCell> cells_;
};

// The report of every cell and the digest of everything an output holds,
// read back in blocks of rows (what `run -o` and `summary` print).
std::pair<std::vector<CellReport>, std::string> read_reports(const ResultsReader& file);

}  // namespace pfmab::io
