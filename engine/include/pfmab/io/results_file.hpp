#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pfmab/io/experiment.hpp"
#include "pfmab/io/option_names.hpp"
#include "pfmab/io/report.hpp"
#include "pfmab/io/row_block.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/replication.hpp"
#include "pfmab/sim/shard.hpp"
#include "pfmab/sim/time_used.hpp"
#include "pfmab/theory/bounds.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/stop_token.hpp"

namespace pfmab::io {

// Beside the sources (engine/src/io): no HDF5 declaration reaches the
// users of this header.
class NewOutput;
namespace h5 {
class Handle;
}

// The HDF5 output of a run (layout in docs/outputs.md): root
// attributes for provenance, then cells/NNNN/ per cell with its parameters,
// means, checkpoints, the replications its rows hold (replication_ranges:
// [0, R) for a whole run, the shard's share for a shard), its rows (a
// record per replication, a field per column of sim::kColumns), the count
// of complete rows (replications_done) and, once the cell is complete, its
// summary: the mean, std, ci95_low, ci95_high, median, q05 and q95 of each
// series at each checkpoint (not in a shard: a summary is of the whole
// cell, written by `merge`).
//
// The writer streams rows in replication order under HDF5's single-writer /
// multiple-reader mode, so h5py can read the file while it grows and after
// the writer is killed at any moment. A row counts once replications_done
// covers it; replications_done is written only after the rows are flushed.
// Each cell's summary is built as its rows arrive (CellSummary), so it is
// written as soon as the last one is in, without reading the rows back; a
// writer that continues a cell replays the rows already there first.
//
// A new output is built complete under another name and moved to its own
// when done (NewOutput), so a failure leaves no file behind. A failure to
// write (a full disk) throws SystemError naming the output and the cause;
// the writer then leaves the file as a kill at that moment would, neither
// writing nor closing it, so that it holds the replications flushed before,
// which the same command continues.
//
// The writer is in results_writer.cpp, the reader in results_reader.cpp;
// where the file holds what, in results_layout.hpp (engine/src/io).
class ResultsWriter {
 public:
  // The rows of a chunk of every per-replication dataset of a cell, at most:
  // a cell created for fewer replications has chunks of that many rows (a
  // chunk is stored whole however few of its rows exist, so 256-row chunks
  // made a 20-replication cell 13 times its data). (64-row chunks cost 30%
  // more time in the writer and 40% more in reading back than 256, measured
  // on 40,000 replications: more chunks to index and look up.)
  static constexpr std::size_t kChunkRows = 256;
  // The rows from row `row` of `cell` to the end of its chunk. Rows are
  // appended in blocks that end there at the latest, and held until their
  // chunk is complete, so that it is written whole, in one write, and
  // compressed (RowSets, in results_layout.hpp).
  // The chunk is the one the cell's datasets were created with, read from
  // the file: an output of an earlier version (256 rows) or one that grew
  // past the replications it was created for keeps its own.
  std::uint64_t rows_to_chunk_end(std::size_t cell, std::uint64_t row) const;
  // The rows of a chunk of `cell`'s rows dataset, whether `first`, the
  // chunk's start, to `end` are the rows it will hold: the whole chunk, or
  // the cell's last rows. Such rows are written in one write, compressed,
  // and may come already through the filters (append).
  std::uint64_t chunk_rows(std::size_t cell) const;
  bool completes_chunk(std::size_t cell, std::uint64_t end) const;

  // Creates `path` for `shard` of the experiment, or continues it if it holds
  // the same shard of the same experiment (same canonical form): then done(c)
  // rows of every cell are kept. Throws UserError, leaving the file as it
  // was, if it may not receive an output (check_output: the experiment's
  // files are the inputs), holds anything else (unless `overwrite`), or
  // another run is writing it (in this process or another); the messages
  // name the options as `names` does. Polls `stop` while it creates the
  // file (throwing Interrupted, leaving no file behind). The cells' C* are
  // their games' in `games`, the run's.
  ResultsWriter(const std::filesystem::path& path, const Experiment& experiment,
                std::span<const sim::Cell> cells, theory::Games& games, bool overwrite,
                const sim::Shard& shard = {}, const OptionNames& names = {},
                const StopToken& stop = {});
  // Makes the copy of a shard in `merged` the start of a merge whose cells
  // will hold `ranges` (per cell, in order; the shard's rows are the first)
  // and continues it: the other shards' rows are then appended
  // (merge_shards). `merged_from` is recorded as provenance.
  ResultsWriter(const NewOutput& merged, std::span<const std::vector<sim::ReplicationRange>> ranges,
                const std::string& merged_from);
  ~ResultsWriter();  // flushes, then closes (unless a write failed)
  // Flushes and closes the file now, throwing SystemError if that fails.
  void close();
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  std::size_t cells() const;
  std::size_t checkpoints(std::size_t cell) const;
  std::size_t clients(std::size_t cell) const;
  // Rows appended to `cell`, with those of an earlier run it continues.
  std::uint64_t done(std::size_t cell) const;
  bool resumed() const;

  // Appends `result` as replication done(cell) of `cell`, held with the
  // rest of its chunk until the chunk is complete.
  void append(std::size_t cell, const sim::ReplicationResult& result);
  // Appends the block's rows as replications done(block.cell) onwards (the
  // block ends on a chunk boundary at the latest).
  //
  // Rows are written when their chunk is complete, or once they waited a
  // minute, and become durable at the next commit: a flush, then
  // replications_done and the summary datasets of the cells completed,
  // then a flush. It happens by itself once 1,024 rows or 64 completed
  // cells are written, or a minute after a write (results_writer.cpp).
  void append(const RowBlock& block);
  // The same, for a block of the rows of a chunk from its start that
  // complete it (completes_chunk), with those rows through the dataset's
  // filters (engine/src/io/chunk_filter.hpp), made by the caller: the writer stores
  // `filtered` as it is. So filtering can be done by another thread than
  // the one that calls HDF5.
  void append(const RowBlock& block, std::span<const std::byte> filtered);
  // Adds `used` to what the rows of `cell` took, recorded at the next
  // commit: for rows appended from a file (a shard's, in a merge), which
  // records a cell's total, not each row's. Nothing if the output records
  // no time (made before pfmab did).
  void add_time_used(std::size_t cell, const sim::TimeUsed& used);
  // Writes the buffered rows, flushes them, then records them as done.
  void flush();
  // Flushes, and writes the summary datasets of every complete cell that
  // has none yet (cells completed by an earlier, interrupted run).
  void write_summaries();

 private:
  class Impl;  // results_writer.cpp
  std::unique_ptr<Impl> impl_;
};

// What a cell's group says about it.
struct StoredCell {
  std::string name;           // the group, e.g. "cells/0003"
  nlohmann::json parameters;  // its entry in the experiment's canonical form
  std::string algorithm, rewards, schedule, schedule_formula, instance, mode;
  theory::Bounds bounds;
  double alpha = 0.0;
  std::uint64_t horizon = 0;
  std::size_t clients = 0, arms = 0;
  std::vector<std::uint64_t> checkpoints;
  std::uint64_t requested = 0;                // the replications the experiment asks of it
  std::vector<sim::ReplicationRange> ranges;  // the replications its rows are, in order
  std::uint64_t done = 0;                     // complete rows
  // What computing its rows took (docs/outputs.md, time_used); none in an
  // output made before pfmab recorded it.
  std::optional<sim::TimeUsed> used;

  std::uint64_t expected() const { return sim::total(ranges); }  // rows when complete
};

// A file that ResultsReader cannot read as a pfmab output.
class UnreadableOutput : public UserError {
 public:
  using UserError::UserError;
};

// Reads an output file, also while a run is writing it (SWMR read).
class ResultsReader {
 public:
  // Throws UserError if `path` is missing or a pfmab output of another
  // format, and UnreadableOutput, "'PATH' is not a readable pfmab output:
  // WHY", if it is not an HDF5 file or not pfmab's, HDF5 cannot read it
  // (truncated, corrupt), or what it holds contradicts itself
  // (replications_done above the replications of the cell, fewer rows than
  // that, datasets of the wrong shape). Reading rows later throws the same.
  // The messages name the options as `names` does.
  explicit ResultsReader(const std::filesystem::path& path, const OptionNames& names = {});
  ResultsReader(ResultsReader&&) noexcept;
  ResultsReader& operator=(ResultsReader&&) noexcept;
  ~ResultsReader();

  std::string attribute(const std::string& name) const;
  std::uint64_t seed() const { return seed_; }
  sim::Shard shard() const { return shard_; }  // 0/1 for a whole run or a merge
  // A merge of some of the shards only (merge --partial).
  bool partial() const;
  const std::vector<StoredCell>& cells() const { return cells_; }
  // The cells its experiment refused, which the run skipped (skip_refused).
  const std::vector<RefusedCell>& refused() const { return refused_; }
  // Rows [first, first + count) of cell `cell`.
  std::vector<sim::ReplicationResult> read(std::size_t cell, std::uint64_t first,
                                           std::uint64_t count) const;
  RowBlock rows(std::size_t cell, std::uint64_t first, std::uint64_t count) const;
  // The summary datasets of cell `cell`: [series][statistic][checkpoint], in
  // CellSummary's orders (NaN until the cell is complete).
  std::vector<std::vector<std::vector<double>>> summary(std::size_t cell) const;

 private:
  // Runs `step`, turning a failure to read the file into that UserError.
  template <class Step>
  auto reading(Step&& step) const -> decltype(step());
  UnreadableOutput unreadable(const std::string& why) const;
  // Refuses a cell whose records contradict one another.
  void check(const StoredCell& cell, const h5::Handle& group) const;

  std::filesystem::path path_;
  std::unique_ptr<h5::Handle> file_;
  std::uint64_t seed_ = 0;
  sim::Shard shard_;
  std::vector<StoredCell> cells_;
  std::vector<RefusedCell> refused_;
};

// The report of every cell and the digest of everything an output holds,
// read back in blocks of rows (what `run -o` and `summary` print).
std::pair<std::vector<CellReport>, std::string> read_reports(const ResultsReader& file);

}  // namespace pfmab::io
