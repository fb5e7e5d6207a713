#include "io/results_layout.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <ctime>
#include <limits>
#include <set>
#include <string_view>
#include <variant>

#include <fmt/format.h>

#include "pfmab/io/parameters.hpp"
#include "pfmab/io/report.hpp"
#include "pfmab/io/results_file.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/version.hpp"

#include "io/cell_summary.hpp"
#include "io/chunk_filter.hpp"
#include "io/row_records.hpp"
#include "io/time_used_layout.hpp"

namespace pfmab::io {
namespace {

h5::Handle latest_format_access() {
  h5::Handle access(H5Pcreate(H5P_FILE_ACCESS));
  // SWMR needs the latest file format.
  h5::check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST),
            "H5Pset_libver_bounds");
  return access;
}

// Builds a file in memory (HDF5's core driver) and writes it to its name in
// one go when it is closed: no write can fail half-way through building it,
// and the one that can, the close, is checked. Closing fails, rather than
// waiting for them, if objects of the file are still open (SEMI): it must
// write the file now.
h5::Handle in_memory_access() {
  auto access = latest_format_access();
  h5::check(H5Pset_fapl_core(access.get(), 1 << 20, true), "H5Pset_fapl_core");
  h5::check(H5Pset_fclose_degree(access.get(), H5F_CLOSE_SEMI), "H5Pset_fclose_degree");
  return access;
}

// For reading a file a writer may be appending to. Under SWMR read, HDF5
// reads a metadata block whose checksum fails again (the writer may be half
// way through writing it), sleeping twice as long before each attempt: its
// default of 100 attempts would wait 2^100 ns on a corrupt file. 30 wait
// about a second in all, far longer than writing one block takes.
h5::Handle swmr_read_access() {
  auto access = latest_format_access();
  h5::check(H5Pset_metadata_read_attempts(access.get(), 30), "H5Pset_metadata_read_attempts");
  return access;
}

// The paper's theory for a cell, as attributes of its group
// (docs/outputs.md): written once, when the output is created. Its C* is
// its game's, stored once for every cell of the game (write_game).
void write_bounds(hid_t group, const theory::Bounds& b) {
  h5::write_attribute(group, "theorem1_constant", b.theorem1_constant);
  h5::write_attribute(group, "theorem1_lower_bound", b.theorem1_lower());
  h5::write_attribute(group, "corollary1_constant", b.corollary1_constant);
  h5::write_attribute(group, "corollary1_lower_bound", b.corollary1_lower());
  h5::write_attribute(group, "game", std::uint64_t{b.game});
  h5::write_attribute(group, "theorem2_upper_bound", b.theorem2_upper);
  h5::write_attribute(group, "theorem2_note", b.theorem2_note);
}

// Which replications a cell's rows are: [n, 2] (first, end) pairs.
void write_ranges(hid_t group, std::span<const sim::ReplicationRange> ranges) {
  std::vector<std::uint64_t> pairs;
  for (const auto& r : ranges) pairs.insert(pairs.end(), {r.first, r.end});
  if (H5Lexists(group, "replication_ranges", H5P_DEFAULT) > 0) {
    h5::check(H5Ldelete(group, "replication_ranges", H5P_DEFAULT), "H5Ldelete");
  }
  h5::write_dataset(group, "replication_ranges", pairs, {ranges.size(), 2});
}

// A cell's values as attributes of its group, one per parameter, named as
// in the canonical form: a parameter without a value is NaN (a real: q when
// S is given) or 0 (a whole number: S when q is given); the means are the
// `means` dataset, and `instance` says where they came from.
void write_values(hid_t group, const CellValues& values) {
  const auto all = parameters();
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!all[i].of_cell || !recorded_in(all[i], values)) continue;
    const std::string name(all[i].name());
    struct {
      hid_t group;
      const Parameter& parameter;
      const std::string& name;
      void operator()(std::monostate) const {
        if (parameter.type == ValueType::real) {
          h5::write_attribute(group, name, std::numeric_limits<double>::quiet_NaN());
        } else {
          h5::write_attribute(group, name, std::uint64_t{0});
        }
      }
      void operator()(double v) const { h5::write_attribute(group, name, v); }
      void operator()(std::uint64_t v) const { h5::write_attribute(group, name, v); }
      void operator()(const std::string& v) const { h5::write_attribute(group, name, v); }
      void operator()(const std::shared_ptr<const GivenMeans>& v) const {
        h5::write_attribute(group, "instance", v->name);
      }
    } write{group, all[i], name};
    std::visit(write, values.all()[i]);
  }
  // the keys it holds its default of because its algorithm has no use for them
  std::string unused;
  for (const auto& parameter : all.first(values.size())) {
    if (!parameter.of_cell || !recorded_in(parameter, values) || !no_effect(parameter, values)) {
      continue;
    }
    if (!unused.empty()) unused += ',';
    unused += parameter.name();
  }
  h5::write_attribute(group, "no_effect", unused);
  h5::write_attribute(group, "replications", values.whole("replications"));
}

// A cell's summary, one dataset [series, statistic, checkpoint] of NaN
// until the cell completes, its axes named by its attributes `series` and
// `statistics` (comma lists). One dataset, not one per series and
// statistic: a sweep of many short cells costs HDF5 a fixed time per object
// created, opened and flushed (bench/README.md, "Writer against cells").
void write_summary_dataset(hid_t group, hsize_t checkpoints) {
  constexpr auto series = CellSummary::kSeries.size(), statistics = CellSummary::kStatistics.size();
  h5::write_dataset(
      group, "summary",
      std::vector(series * statistics * checkpoints, std::numeric_limits<double>::quiet_NaN()),
      {series, statistics, checkpoints});
  const auto set = open_dataset(group, "summary");
  const auto joined = [](const auto& names) {
    std::string text;
    for (const auto* name : names) {
      if (!text.empty()) text += ',';  // no string temporary: GCC 12's -Wrestrict false positive
      text += name;
    }
    return text;
  };
  h5::write_attribute(set.get(), "series", joined(CellSummary::kSeries));
  h5::write_attribute(set.get(), "statistics", joined(CellSummary::kStatistics));
}

// A game's C* (theory::Games), once for all its cells: the group
// games/NNNN, NNNN the game's index, which each of its cells records as its
// attribute `game`. What the game is (the means, the alpha they are
// measured with, the reward family) is said by `cell`, one of its cells.
void write_game(hid_t file, std::size_t game, const theory::GameConstant& constant,
                const sim::Cell& cell, const CellValues& values) {
  h5::Handle group(
      H5Gcreate2(file, game_name(game).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  h5::write_attribute(group.get(), "instance", values.means().name);
  h5::write_attribute(group.get(), "alpha", cell.measured().alpha());
  const auto& rewards = cell.instance().rewards();
  h5::write_attribute(group.get(), "rewards", std::string(rewards.name()));
  const auto declared = rewards.family().parameters();
  for (std::size_t i = 0; i < declared.size(); ++i) {
    h5::write_attribute(group.get(), std::string(declared[i].name), rewards.values()[i]);
  }
  h5::write_attribute(group.get(), "c_star", constant.c_star);
  h5::write_attribute(group.get(), "c_star_note", constant.note);
}

// Creates cell `index`'s group; returns the index of its game.
std::size_t create_cell(hid_t file, std::size_t index, const sim::Cell& cell,
                        const CellValues& values, sim::ReplicationRange range, theory::Games& games,
                        const StopToken& stop) {
  const auto name = group_name(index);
  // Its attributes in its object header, however many: past 8, HDF5 would
  // move them to a heap and a B-tree of their own, 2 KB more per cell.
  h5::Handle create(H5Pcreate(H5P_GROUP_CREATE));
  constexpr unsigned kCompactAttributes = 1024;  // more than a cell has
  h5::check(H5Pset_attr_phase_change(create.get(), kCompactAttributes, kCompactAttributes),
            "H5Pset_attr_phase_change");
  h5::untrack_times(create.get());
  h5::Handle group(H5Gcreate2(file, name.c_str(), H5P_DEFAULT, create.get(), H5P_DEFAULT));
  h5::write_attribute(group.get(), "index", std::uint64_t{index});
  write_values(group.get(), values);
  // how its rewards are drawn, which for a baseline is not the mode asked
  h5::write_attribute(group.get(), "mode", std::string(sim::to_string(cell.drawn_fidelity())));
  h5::write_attribute(group.get(), "schedule_formula", cell.algorithm().schedule());
  h5::write_attribute(group.get(), "clients", std::uint64_t{cell.instance().clients()});
  h5::write_attribute(group.get(), "arms", std::uint64_t{cell.instance().arms()});
  const auto bounds = cell.algorithm().bounds(cell, games, stop);
  write_bounds(group.get(), bounds);

  const auto m = cell.instance().clients(), k = cell.instance().arms();
  std::vector<double> means;
  for (std::size_t c = 0; c < m; ++c) {
    const auto row = cell.instance().local_means(c);
    means.insert(means.end(), row.begin(), row.end());
  }
  h5::write_dataset(group.get(), "means", means, {m, k});
  const auto& grid = cell.checkpoints();
  h5::write_dataset(group.get(), "checkpoints", grid, {grid.size()});
  h5::write_dataset(group.get(), "replications_done", std::vector<std::uint64_t>{0}, {1});
  create_time_used(group.get());
  write_ranges(group.get(), std::span(&range, 1));

  // no chunk longer than the cell's rows will be: a chunk takes its whole
  // size in the file however few of its rows exist
  // (a shard's cell may have none: a chunk has at least one)
  const hsize_t chunk_rows =
      std::max<hsize_t>(1, std::min<hsize_t>(ResultsWriter::kChunkRows, range.count()));
  h5::create_rows(group.get(), "replications", RowRecords(grid.size(), m).type().get(), chunk_rows);

  // Summaries are written when the cell completes; SWMR allows no new
  // objects once it starts, so it exists (as NaN) from the beginning.
  write_summary_dataset(group.get(), grid.size());
  return bounds.game;
}

}  // namespace

std::string group_name(std::size_t cell) { return fmt::format("cells/{:04}", cell); }
std::string game_name(std::size_t game) { return fmt::format("games/{:04}", game); }

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string canonical_text(const Experiment& experiment) { return experiment.canonical.dump(); }

h5::Handle open_dataset(hid_t parent, const std::string& name) {
  return h5::Handle(H5Dopen2(parent, name.c_str(), H5P_DEFAULT));
}

// Writes the whole file in memory (in_memory_access): nothing reaches the
// disk until it is complete.
void create_output(const std::filesystem::path& path, const Experiment& experiment,
                   std::span<const sim::Cell> cells, theory::Games& games, const sim::Shard& shard,
                   const StopToken& stop) {
  h5::Handle created(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, in_memory_access().get()));
  const auto root = created.get();
  h5::write_attribute(root, "format", std::string(kFormat));
  h5::write_attribute(root, "pfmab_version", std::string(PFMAB_VERSION));
  h5::write_attribute(root, "git_commit", std::string(git_commit()));
  h5::write_attribute(root, "created", now_utc());
  h5::write_attribute(root, "seed", experiment.seed);
  h5::write_attribute(root, "shard", shard.text());
  h5::write_attribute(root, "source", experiment.source);
  h5::write_attribute(root, "experiment", experiment.text);
  h5::write_attribute(root, "experiment_canonical", canonical_text(experiment));
  // the keys that tell its cells apart, as their attributes are named
  std::vector<CellReport> identities(cells.size());
  for (std::size_t c = 0; c < cells.size(); ++c) {
    identities[c].keys =
        cell_keys(experiment.values[c], std::string(sim::to_string(cells[c].drawn_fidelity())));
  }
  std::string keys;
  for (const auto& key : varied_keys(identities)) {
    if (!keys.empty()) keys += ',';  // no string temporary: GCC 12's -Wrestrict false positive
    keys += key;
  }
  h5::write_attribute(root, "sweep_keys", keys);
  h5::Handle(H5Gcreate2(root, "cells", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  h5::Handle(H5Gcreate2(root, "games", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  std::set<std::size_t> written;  // the games of the cells so far
  const auto ranges = experiment.ranges_of(shard);
  for (std::size_t c = 0; c < cells.size(); ++c) {
    stop.throw_if_requested();
    const auto game = create_cell(root, c, cells[c], experiment.values[c], ranges[c], games, stop);
    if (written.insert(game).second) {
      write_game(root, game, games[game], cells[c], experiment.values[c]);
    }
  }
  created.close();  // written: complete on disk
}

// Opens an existing output to write to it. SWMR-write mode from the open
// on (unless no reader may open it): a kill at any later moment leaves marks
// that SWMR readers accept and the next writer clears ("clear_status_flags";
// the caller's lock proves nobody else is writing). A writer killed between two flushes may have used
// space past the end of allocation its superblock records: moving that end
// to the end of the file, as `h5clear -s -i` does, keeps HDF5 from refusing
// to read that space or allocating over it.
h5::Handle open_for_writing(const std::filesystem::path& path, Readers readers) {
  auto access = latest_format_access();
  h5::bound_metadata_cache(access.get());
  hbool_t clear = true;
  h5::check(H5Pset(access.get(), "clear_status_flags", &clear), "H5Pset clear_status_flags");
  const unsigned swmr = readers == Readers::allowed ? H5F_ACC_SWMR_WRITE : 0;
  const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDWR | swmr, access.get());
  if (id < 0) {
    // most often HDF5's file lock, taken by a reader that opened it first
    throw UserError(fmt::format(
        "cannot open output '{}' for writing: is another program (h5py, HDFView) holding it "
        "open? Close it and run again; readers may open it once the run has started",
        path.string()));
  }
  h5::Handle file(id);
  h5::check(H5Fincrement_filesize(file.get(), 0), "H5Fincrement_filesize");
  return file;
}

namespace {

// Opens an output to change what it records before rows are written to it:
// not in SWMR mode, which allows no new attributes or datasets.
h5::Handle open_to_amend(const std::filesystem::path& path) {
  auto access = latest_format_access();
  hbool_t clear = true;  // a writer killed while writing left its marks
  h5::check(H5Pset(access.get(), "clear_status_flags", &clear), "H5Pset clear_status_flags");
  return h5::Handle(H5Fopen(path.c_str(), H5F_ACC_RDWR, access.get()));
}

}  // namespace

void grow_output(const std::filesystem::path& path, const Experiment& experiment) {
  auto file = open_to_amend(path);
  for (std::size_t c = 0; c < experiment.cells.size(); ++c) {
    h5::Handle group(H5Gopen2(file.get(), group_name(c).c_str(), H5P_DEFAULT));
    const sim::ReplicationRange whole{0, experiment.replications(c)};
    if (read_ranges(group.get()) == std::vector{whole}) continue;
    write_ranges(group.get(), std::span(&whole, 1));
    h5::write_attribute(group.get(), "replications", whole.end);
    // its summary is of fewer rows than it will hold: none until it is complete
    const auto checkpoints = h5::dims(open_dataset(group.get(), "checkpoints").get())[0];
    const std::vector<double> nans(checkpoints, std::numeric_limits<double>::quiet_NaN());
    write_summary(group.get(), std::vector(CellSummary::kSeries.size(),
                                           std::vector(CellSummary::kStatistics.size(), nans)));
  }
  // What it is, last: a kill in between leaves cells that contradict the
  // record, which the reader refuses, never a file that passes for either.
  h5::write_attribute(file.get(), "grown", now_utc());
  h5::write_attribute(file.get(), "experiment", experiment.text);
  h5::write_attribute(file.get(), "experiment_canonical", canonical_text(experiment));
  file.close();
}

void record_merge(const std::filesystem::path& path,
                  std::span<const std::vector<sim::ReplicationRange>> ranges,
                  const std::string& merged_from) {
  auto file = open_to_amend(path);
  h5::write_attribute(file.get(), "shard", sim::Shard{}.text());
  h5::write_attribute(file.get(), "merged", now_utc());
  h5::write_attribute(file.get(), "merged_from", merged_from);
  for (std::size_t c = 0; c < ranges.size(); ++c) {
    h5::Handle group(H5Gopen2(file.get(), group_name(c).c_str(), H5P_DEFAULT));
    write_ranges(group.get(), ranges[c]);
  }
  file.close();
}

h5::Handle open_for_reading(const std::filesystem::path& path) {
  return h5::Handle(
      H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, swmr_read_access().get()));
}

theory::Bounds read_bounds(hid_t file, hid_t group, std::uint64_t horizon) {
  theory::Bounds b;
  b.log_horizon = std::log(static_cast<double>(horizon));
  b.theorem1_constant = h5::read_double_attribute(group, "theorem1_constant");
  b.corollary1_constant = h5::read_double_attribute(group, "corollary1_constant");
  b.game = h5::read_uint_attribute(group, "game");
  h5::Handle game(H5Gopen2(file, game_name(b.game).c_str(), H5P_DEFAULT));
  b.c_star = h5::read_double_attribute(game.get(), "c_star");
  b.c_star_note = h5::read_string_attribute(game.get(), "c_star_note");
  b.theorem2_upper = h5::read_double_attribute(group, "theorem2_upper_bound");
  b.theorem2_note = h5::read_string_attribute(group, "theorem2_note");
  return b;
}

std::vector<sim::ReplicationRange> read_ranges(hid_t group) {
  h5::Handle set(H5Dopen2(group, "replication_ranges", H5P_DEFAULT));
  const auto pairs = h5::read_block<std::uint64_t>(set.get(), 0, h5::dims(set.get())[0], 0, 2);
  std::vector<sim::ReplicationRange> ranges;
  for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) ranges.push_back({pairs[i], pairs[i + 1]});
  return ranges;
}

std::uint64_t read_done(hid_t group) {
  return h5::read_block<std::uint64_t>(open_dataset(group, "replications_done").get(), 0, 1)[0];
}

void write_done(hid_t group, std::uint64_t done) {
  h5::overwrite(open_dataset(group, "replications_done").get(), std::vector<std::uint64_t>{done});
}

RowSets::RowSets(hid_t group, std::size_t cell, std::size_t checkpoints, std::size_t clients,
                 hsize_t chunk_rows, hsize_t rows)
    : records_(checkpoints, clients),
      chunk_rows_(chunk_rows),
      // read now, before this opening writes a chunk unfiltered, after
      // which HDF5 cannot read it through it (h5::write_chunk)
      part_(read_rows(group, cell, checkpoints, clients, rows - rows % chunk_rows,
                      rows % chunk_rows)) {
  set_ = h5::Handle(H5Dopen2(group, "replications", h5::direct_chunk_access().get()));
  in_parts_ = part_.rows > 0 && h5::stored_unfiltered(set_.get(), rows - part_.rows);
}

void RowSets::write_filtered(const RowBlock& block, hsize_t first) {
  filter_chunk(block, chunk_rows_, bytes_);
  h5::write_chunk(set_.get(), first, first + block.rows, bytes_, true);
}

void RowSets::write(const RowBlock& block, hsize_t first, bool ends_cell,
                    std::span<const std::byte> filtered) {
  const hsize_t offset = first % chunk_rows_;  // in its chunk
  const bool completes = offset + block.rows == chunk_rows_ || ends_cell;
  if (offset == 0 && completes && !filtered.empty()) {
    return h5::write_chunk(set_.get(), first, first + block.rows, filtered, true);
  }
  if (offset == 0 && completes) return write_filtered(block, first);
  if (offset == 0) {
    part_.reset(block.cell, block.checkpoints, block.clients);
    in_parts_ = false;
  }
  assert(part_.rows == offset);
  part_.append(block);
  if (completes && !in_parts_) {
    // its first rows are stored compressed (in the copy of a shard a merge
    // starts from, or a cell that grows): written again whole, compressed
    return write_filtered(part_, first - offset);
  }
  in_parts_ = !completes;
  bytes_.clear();
  records_.pack(part_, 0, part_.rows, bytes_);
  bytes_.resize(chunk_rows_ * records_.size());  // the whole chunk, zero past its rows
  h5::write_chunk(set_.get(), first - offset, first + block.rows, bytes_, false);
}

void RowSets::close() { set_.close(); }

void RowSets::abandon() { set_.abandon(); }

hsize_t read_chunk_rows(hid_t group) {
  return h5::chunk_rows(open_dataset(group, "replications").get());
}

RowBlock read_rows(hid_t group, std::size_t cell, std::size_t checkpoints, std::size_t clients,
                   std::uint64_t first, std::uint64_t count) {
  RowBlock block;
  block.reset(cell, checkpoints, clients);
  if (count == 0) return block;  // as a writer opening a new cell asks: nothing to open
  const RowRecords records(checkpoints, clients);
  std::vector<std::byte> bytes(count * records.size());
  h5::read_rows(open_dataset(group, "replications").get(), records.type().get(), first, count,
                bytes);
  records.unpack(bytes, block);
  return block;
}

void truncate_rows(hid_t group, std::uint64_t rows) {
  h5::set_rows(open_dataset(group, "replications").get(), rows);
}

std::vector<double> read_series_column(hid_t group, std::size_t cell, std::size_t checkpoints,
                                       std::size_t clients, std::size_t series, hsize_t rows,
                                       hsize_t column) {
  // in blocks of rows: the records of a whole cell may not fit in memory
  constexpr hsize_t kBlock = 4096;
  std::vector<double> out;
  out.reserve(rows);
  for (hsize_t first = 0; first < rows; first += kBlock) {
    const auto block =
        read_rows(group, cell, checkpoints, clients, first, std::min(kBlock, rows - first));
    std::size_t s = 0;  // CellSummary::kSeries index
    block.for_each_column([&](const auto& c, const auto& values) {
      if (c.summary != sim::Summary::statistics || s++ != series) return;
      for (std::size_t r = 0; r < block.rows; ++r)
        out.push_back(static_cast<double>(values[r * checkpoints + column]));
    });
  }
  return out;
}

std::vector<std::vector<std::vector<double>>> read_summary(hid_t group) {
  const auto set = open_dataset(group, "summary");
  const auto checkpoints = h5::dims(set.get()).back();  // its shape checked by ResultsReader
  const auto values = h5::read_all<double>(set.get());
  std::vector<std::vector<std::vector<double>>> out(CellSummary::kSeries.size());
  auto next = values.begin();
  for (auto& of_series : out) {
    for (std::size_t k = 0; k < CellSummary::kStatistics.size(); ++k, next += checkpoints) {
      of_series.emplace_back(next, next + checkpoints);
    }
  }
  return out;
}

void write_summary(hid_t group, const std::vector<std::vector<std::vector<double>>>& statistics) {
  std::vector<double> values;
  for (const auto& of_series : statistics) {
    for (const auto& statistic : of_series)
      values.insert(values.end(), statistic.begin(), statistic.end());
  }
  h5::overwrite(open_dataset(group, "summary").get(), values);
}

}  // namespace pfmab::io
