#pragma once

// Where an output holds what (docs/outputs.md): the groups,
// attributes and datasets ResultsWriter creates and fills and ResultsReader
// reads, and how each of them opens the file.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "pfmab/io/experiment.hpp"
#include "pfmab/io/row_block.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/columns.hpp"
#include "pfmab/sim/shard.hpp"
#include "pfmab/theory/bounds.hpp"
#include "pfmab/util/stop_token.hpp"

#include "io/hdf5.hpp"
#include "io/row_records.hpp"

namespace pfmab::io {

// 2: fidelity mode and the paper's bounds per cell; 3: the algorithm's
// options per cell, the row datasets without a fill value; 4: shards (the
// root's shard, each cell's replication_ranges); 5: string attributes
// stored fixed-length; 6: replications per cell (the canonical form's
// list, each cell's attribute), sweep_keys the keys that vary, each cell's
// no_effect, no root mode; 7: each cell's C* (c_star, c_star_log_T,
// c_star_note); 8: each cell's summary one dataset [series, statistic,
// checkpoint], not a group of 35, and its rows one dataset of records
// (RowRecords), not ten; 9: each game's C* once (games/NNNN), a cell's
// attribute `game` in place of its c_star, c_star_log_T and c_star_note
inline constexpr const char* kFormat = "pfmab-results-9";

std::string group_name(std::size_t cell);  // cells/NNNN
std::string game_name(std::size_t game);   // games/NNNN
std::string canonical_text(const Experiment& experiment);
std::string now_utc();

h5::Handle open_dataset(hid_t parent, const std::string& name);

// Creates the complete output at `path` (every group, attribute and dataset,
// no rows), built in memory and written when it is closed. Polls `stop`
// for every cell (its bounds may take a C* solve).
void create_output(const std::filesystem::path& path, const Experiment& experiment,
                   std::span<const sim::Cell> cells, theory::Games& games, const sim::Shard& shard,
                   const StopToken& stop);
// Opens an existing output for writing rows, under SWMR if readers are
// allowed (UserError if HDF5 will not open it). An output no reader can
// open yet (a merge, under its temporary name) is written without: HDF5
// under SWMR never frees the place of a chunk it rewrites (a reader may be
// reading it there), and a merge rewrites the chunks its shards share.
enum class Readers { allowed, none };
h5::Handle open_for_writing(const std::filesystem::path& path, Readers readers);
// Makes an output of an experiment the output of `experiment`, the same
// experiment asking as many replications of each cell or more: each
// cell's replication_ranges become [0, R), and the summaries of those that
// grow NaN until they are complete again (docs/outputs.md, "Growing").
void grow_output(const std::filesystem::path& path, const Experiment& experiment);
// Makes the copy of a shard at `path` a merge whose cells hold `ranges`.
void record_merge(const std::filesystem::path& path,
                  std::span<const std::vector<sim::ReplicationRange>> ranges,
                  const std::string& merged_from);
// Opens an output to read it, also while a writer appends to it.
h5::Handle open_for_reading(const std::filesystem::path& path);

// The bounds of the cell of `group` in `file`, its C* its game's.
theory::Bounds read_bounds(hid_t file, hid_t group, std::uint64_t horizon);
std::vector<sim::ReplicationRange> read_ranges(hid_t group);
std::uint64_t read_done(hid_t group);  // replications_done
void write_done(hid_t group, std::uint64_t done);

// A cell's rows dataset (RowRecords), open for writing rows a chunk or part
// of one at a time (ResultsWriter ends its blocks on chunk boundaries, and
// holds the rows of a chunk until it is complete, or a minute).
//
// A block that completes a chunk (to its end, or to the cell's) goes through
// the dataset's filters, compressed, with the chunk's earlier rows, if any,
// unless those are stored in parts. A block of part of a chunk is stored as
// the whole chunk, unfiltered, with the chunk's earlier rows, which RowSets
// keeps, and so is every later part of that chunk: HDF5 writing under SWMR
// never frees the space of a filtered chunk it rewrites (a reader may be
// reading it there), so a chunk compressed anew for each part would leave
// a dead copy of itself per part, where an unfiltered one keeps its size and
// is rewritten in place. A chunk is written in parts only when its rows
// must reach the disk before it is complete: a stop, or rows that waited a
// minute.
class RowSets {
 public:
  // The rows dataset of cell `cell`, which holds `rows` rows in chunks of
  // `chunk_rows`.
  RowSets(hid_t group, std::size_t cell, std::size_t checkpoints, std::size_t clients,
          hsize_t chunk_rows, hsize_t rows);
  // The block's rows as rows [first, first + block.rows), the next ones,
  // within one chunk; `ends_cell`: no row will follow them. `filtered`:
  // the block through filter_chunk, if the caller filtered it (a block that
  // is a whole chunk, or a cell's last rows from a chunk's start), else
  // empty.
  void write(const RowBlock& block, hsize_t first, bool ends_cell,
             std::span<const std::byte> filtered = {});
  void close();
  // Leaves them open (h5::Handle::abandon): the file is abandoned.
  void abandon();

 private:
  // The block's rows, which start a chunk and complete it, as rows
  // [first, ...) through the filters.
  void write_filtered(const RowBlock& block, hsize_t first);

  RowRecords records_;
  h5::Handle set_;
  hsize_t chunk_rows_;
  std::vector<std::byte> bytes_;  // records being written
  RowBlock part_;          // the rows of the last chunk, if it is not full
  bool in_parts_ = false;  // part_ is stored unfiltered, as written in parts
};

// The rows of a chunk of the cell's rows dataset.
hsize_t read_chunk_rows(hid_t group);

// Rows [first, first + count) of cell `cell`, whose group is `group`.
RowBlock read_rows(hid_t group, std::size_t cell, std::size_t checkpoints, std::size_t clients,
                   std::uint64_t first, std::uint64_t count);
// The cell's rows dataset cut to its first `rows` rows.
void truncate_rows(hid_t group, std::uint64_t rows);
// Column `column` of the first `rows` rows of CellSummary series `series`
// of cell `cell`.
std::vector<double> read_series_column(hid_t group, std::size_t cell, std::size_t checkpoints,
                                       std::size_t clients, std::size_t series, hsize_t rows,
                                       hsize_t column);
// The cell's summary dataset, as CellSummary::statistics gives it:
// [series][statistic][checkpoint].
std::vector<std::vector<std::vector<double>>> read_summary(hid_t group);
void write_summary(hid_t group, const std::vector<std::vector<std::vector<double>>>& statistics);

}  // namespace pfmab::io
