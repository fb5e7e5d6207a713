#include "pfmab/io/results_file.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>

#include <fmt/format.h>

#include "pfmab/sim/columns.hpp"
#include "pfmab/theory/bounds.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/version.hpp"

namespace pfmab::io {
namespace {

// 2: fidelity mode and the paper's bounds per cell; 3: the algorithm's
// options per cell, the row datasets without a fill value; 4: shards (the
// root's shard, each cell's replication_ranges)
constexpr const char* kFormat = "pfmab-results-5";
constexpr auto kFlushInterval = std::chrono::milliseconds(500);
constexpr hsize_t kChunkRows = ResultsWriter::kChunkRows;

// Each column (sim::kColumns) is a dataset under replications/, its rows the
// replications of the cell's replication_ranges, in order. Its columns in a
// cell (0: a 1-D dataset).
template <class Column>
hsize_t columns_of(const Column& column, hsize_t checkpoints, hsize_t clients) {
  return column.width == sim::Width::one ? 0 : column.count(checkpoints, clients);
}

std::string group_name(std::size_t cell) { return fmt::format("cells/{:04}", cell); }

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

h5::Handle open_dataset(hid_t parent, const std::string& name) {
  return h5::Handle(H5Dopen2(parent, name.c_str(), H5P_DEFAULT));
}

// Opens an existing output to write to it. SWMR-write mode from the open
// on: a kill at any later moment leaves marks that SWMR readers accept and
// the next writer clears ("clear_status_flags"; the caller's lock proves
// nobody else is writing). A writer killed between two flushes may have used
// space past the end of allocation its superblock records: moving that end
// to the end of the file, as `h5clear -s -i` does, keeps HDF5 from refusing
// to read that space or allocating over it.
h5::Handle open_for_writing(const std::filesystem::path& path) {
  auto access = latest_format_access();
  hbool_t clear = true;
  h5::check(H5Pset(access.get(), "clear_status_flags", &clear), "H5Pset clear_status_flags");
  const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDWR | H5F_ACC_SWMR_WRITE, access.get());
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

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string canonical_text(const Experiment& experiment) { return experiment.canonical.dump(); }

// The paper's theory for a cell, as attributes of its group (README, "The
// output file"): written once, when the output is created.
void write_bounds(hid_t group, const theory::Bounds& b) {
  h5::write_attribute(group, "theorem1_constant", b.theorem1_constant);
  h5::write_attribute(group, "theorem1_lower_bound", b.theorem1_lower());
  h5::write_attribute(group, "corollary1_constant", b.corollary1_constant);
  h5::write_attribute(group, "corollary1_lower_bound", b.corollary1_lower());
  h5::write_attribute(group, "theorem2_upper_bound", b.theorem2_upper);
  h5::write_attribute(group, "theorem2_note", b.theorem2_note);
}

theory::Bounds read_bounds(hid_t group, std::uint64_t horizon) {
  theory::Bounds b;
  b.log_horizon = std::log(static_cast<double>(horizon));
  b.theorem1_constant = h5::read_double_attribute(group, "theorem1_constant");
  b.corollary1_constant = h5::read_double_attribute(group, "corollary1_constant");
  b.theorem2_upper = h5::read_double_attribute(group, "theorem2_upper_bound");
  b.theorem2_note = h5::read_string_attribute(group, "theorem2_note");
  return b;
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

std::vector<sim::ReplicationRange> read_ranges(hid_t group) {
  h5::Handle set(H5Dopen2(group, "replication_ranges", H5P_DEFAULT));
  const auto pairs = h5::read_block<std::uint64_t>(set.get(), 0, h5::dims(set.get())[0], 0, 2);
  std::vector<sim::ReplicationRange> ranges;
  for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) ranges.push_back({pairs[i], pairs[i + 1]});
  return ranges;
}

void create_cell(hid_t file, std::size_t index, const sim::Cell& cell,
                 const nlohmann::json& canonical, sim::ReplicationRange range) {
  const auto name = group_name(index);
  h5::Handle group(H5Gcreate2(file, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  const auto& spec = cell.spec();
  const auto& params = canonical["cells"][index];
  h5::write_attribute(group.get(), "index", std::uint64_t{index});
  h5::write_attribute(group.get(), "algorithm", params["algorithm"].get<std::string>());
  h5::write_attribute(group.get(), "preset", params["preset"].get<std::string>());
  h5::write_attribute(group.get(), "lengths", params["lengths"].get<std::string>());
  h5::write_attribute(group.get(), "algorithm_alpha", cell.algorithm_alpha());
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  const auto& participation = spec.participation;
  h5::write_attribute(group.get(), "participation_probability",
                      participation.clients ? nan : participation.probability);
  h5::write_attribute(group.get(), "participation_clients",
                      std::uint64_t{participation.clients.value_or(0)});
  h5::write_attribute(group.get(), "participation_aggregate",
                      std::string(algorithms::to_string(participation.aggregation)));
  h5::write_attribute(group.get(), "mode", std::string(sim::to_string(sim::drawn_fidelity(spec))));
  h5::write_attribute(group.get(), "instance", spec.instance_name);
  h5::write_attribute(group.get(), "rewards", params["rewards"].get<std::string>());
  h5::write_attribute(group.get(), "sigma", params["sigma"].get<double>());
  h5::write_attribute(group.get(), "alpha", spec.alpha);
  h5::write_attribute(group.get(), "horizon", spec.horizon);
  h5::write_attribute(group.get(), "comm_cost", spec.comm_cost);
  h5::write_attribute(group.get(), "schedule", params["schedule"].get<std::string>());
  h5::write_attribute(group.get(), "schedule_formula", algorithms::describe(spec.params.schedule));
  h5::write_attribute(group.get(), "lambda", spec.params.schedule.lambda);
  h5::write_attribute(group.get(), "schedule_factor", spec.params.schedule.factor);
  h5::write_attribute(group.get(), "confidence_constant", spec.params.confidence_constant);
  h5::write_attribute(group.get(), "log_term", params["log_term"].get<std::string>());
  h5::write_attribute(group.get(), "clients", std::uint64_t{cell.instance().clients()});
  h5::write_attribute(group.get(), "arms", std::uint64_t{cell.instance().arms()});
  write_bounds(group.get(), sim::bounds_of(cell));

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
  write_ranges(group.get(), std::span(&range, 1));

  const hsize_t c = grid.size();
  h5::Handle rows(H5Gcreate2(group.get(), "replications", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  sim::for_each_column([&](const auto& column) {
    h5::create_rows<sim::ElementOf<decltype(column)>>(rows.get(), column.name,
                                                      columns_of(column, c, m), kChunkRows);
  });

  // Summaries are written when the cell completes; SWMR allows no new
  // objects once it starts, so they exist (as NaN) from the beginning.
  h5::Handle summary(H5Gcreate2(group.get(), "summary", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  const std::vector<double> nans(c, nan);
  for (const auto* series : CellSummary::kSeries) {
    h5::Handle stats(H5Gcreate2(summary.get(), series, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    for (const auto* stat : CellSummary::kStatistics)
      h5::write_dataset(stats.get(), stat, nans, {c});
  }
}

// Column `column` of the first `rows` rows of a 2-D dataset, read in blocks
// of rows: a whole column in one read makes HDF5 1.10 fetch every chunk and
// hold selection state for each of them.
template <class T>
std::vector<double> read_column(hid_t set, hsize_t rows, hsize_t column) {
  constexpr hsize_t block = 4096;
  std::vector<double> out;
  out.reserve(rows);
  for (hsize_t r = 0; r < rows; r += block) {
    const auto values = h5::read_block<T>(set, r, std::min(block, rows - r), column, 1);
    out.insert(out.end(), values.begin(), values.end());
  }
  return out;
}

// Replications [first, first + count) of the cell `cell`, group `group`,
// which has `points` checkpoints and `m` clients.
RowBlock read_rows(hid_t file, std::size_t cell, const std::string& group, hsize_t points,
                   hsize_t m, std::uint64_t first, std::uint64_t count) {
  h5::Handle rows(H5Gopen2(file, (group + "/replications").c_str(), H5P_DEFAULT));
  RowBlock block;
  block.reset(cell, points, m);
  block.rows = count;
  sim::for_each_column(block.values, [&](const auto& column, auto& values) {
    values = h5::read_block<sim::ElementOf<decltype(column)>>(
        open_dataset(rows.get(), column.name).get(), first, count, 0, block.width(column));
  });
  return block;
}

// Writes a complete new output (every group and dataset, no rows) under a
// temporary name (NewOutput), then moves it to its own: a kill or a failure
// while it is being built leaves no half-made output. Returns the lock of the
// new file.
OutputLock build_new_output(const OutputTarget& target, const Experiment& experiment,
                            std::span<const sim::Cell> cells, const sim::Shard& shard) {
  NewOutput built(target);
  try {
    h5::Handle created(
        H5Fcreate(built.path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, in_memory_access().get()));
    const auto root = created.get();
    h5::write_attribute(root, "format", std::string(kFormat));
    h5::write_attribute(root, "pfmab_version", std::string(PFMAB_VERSION));
    h5::write_attribute(root, "git_commit", std::string(git_commit()));
    h5::write_attribute(root, "created", now_utc());
    h5::write_attribute(root, "seed", experiment.seed);
    h5::write_attribute(root, "mode", experiment.canonical["mode"].get<std::string>());
    h5::write_attribute(root, "replications", experiment.replications);
    h5::write_attribute(root, "shard", shard.text());
    h5::write_attribute(root, "source", experiment.source);
    h5::write_attribute(root, "experiment", experiment.text);
    h5::write_attribute(root, "experiment_canonical", canonical_text(experiment));
    std::string keys;
    for (const auto& k : sweep_keys) keys += (keys.empty() ? "" : ",") + k;
    h5::write_attribute(root, "sweep_keys", keys);
    h5::Handle(H5Gcreate2(root, "cells", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    for (std::size_t c = 0; c < cells.size(); ++c) {
      create_cell(root, c, cells[c], experiment.canonical, shard.range(experiment.replications));
    }
    created.close();  // written: complete on disk
  } catch (const h5::Error& e) {
    throw SystemError(
        fmt::format("cannot create output '{}': {}", target.shown.string(), e.what()));
  }
  return built.commit();
}

}  // namespace

template <class Step>
void ResultsWriter::writing(Step&& step) {
  try {
    step();
  } catch (const h5::Error& e) {
    for (auto& set : row_sets_) set.abandon();
    file_.abandon();
    throw SystemError(fmt::format("cannot write output '{}': {}", shown_.string(), e.what()));
  }
}

ResultsWriter::ResultsWriter(const std::filesystem::path& path, const Experiment& experiment,
                             std::span<const sim::Cell> cells, bool overwrite,
                             const sim::Shard& shard)
    : shown_(path) {
  h5::silence_errors();
  const auto target = check_output(path, experiment.files);
  if (target.exists && !overwrite) {
    {
      const auto existing = [&] {
        try {
          return ResultsReader(path);
        } catch (const UnreadableOutput& e) {
          throw UserError(
              fmt::format("{} (use --overwrite to replace it, or choose another -o)", e.what()));
        }
      }();
      if (existing.attribute("experiment_canonical") != canonical_text(experiment)) {
        throw UserError(fmt::format(
            "output '{}' holds the results of a different experiment (from {}, created {}); use "
            "--overwrite to replace it, or choose another -o",
            path.string(), existing.attribute("source"), existing.attribute("created")));
      }
      if (existing.shard() != shard) {
        throw UserError(fmt::format(
            "output '{}' holds shard {} of this experiment, not {}; use --overwrite to replace "
            "it, or choose another -o",
            path.string(), existing.shard().text(), shard.text()));
      }
      if (existing.partial()) {
        throw UserError(fmt::format(
            "output '{}' is a partial merge of this experiment's shards and cannot be continued; "
            "merge all the shards again, or use --overwrite",
            path.string()));
      }
    }  // closed before it is reopened for writing
    lock_ = OutputLock(path);
    resumed_ = true;
  } else {
    lock_ = build_new_output(target, experiment, cells, shard);
  }
  writing([&] { open(path); });
}

ResultsWriter::ResultsWriter(const NewOutput& merged,
                             std::span<const std::vector<sim::ReplicationRange>> ranges,
                             const std::string& merged_from)
    : shown_(merged.target().shown) {
  h5::silence_errors();
  writing([&] {
    // Not yet in SWMR mode, which allows no new attributes or datasets.
    auto access = latest_format_access();
    hbool_t clear = true;  // a shard killed while writing left its marks
    h5::check(H5Pset(access.get(), "clear_status_flags", &clear), "H5Pset clear_status_flags");
    h5::Handle file(H5Fopen(merged.path().c_str(), H5F_ACC_RDWR, access.get()));
    h5::write_attribute(file.get(), "shard", sim::Shard{}.text());
    h5::write_attribute(file.get(), "merged", now_utc());
    h5::write_attribute(file.get(), "merged_from", merged_from);
    for (std::size_t c = 0; c < ranges.size(); ++c) {
      h5::Handle group(H5Gopen2(file.get(), group_name(c).c_str(), H5P_DEFAULT));
      write_ranges(group.get(), ranges[c]);
    }
    file.close();
    open(merged.path());
  });
}

void ResultsWriter::open(const std::filesystem::path& path) {
  file_ = open_for_writing(path);
  summarize_ = sim::Shard{}.text() == h5::read_string_attribute(file_.get(), "shard");
  const auto cells = nlohmann::json::parse(
                         h5::read_string_attribute(file_.get(), "experiment_canonical"))["cells"]
                         .size();
  for (std::size_t c = 0; c < cells; ++c) {
    groups_.push_back(group_name(c));
    h5::Handle group(H5Gopen2(file_.get(), groups_[c].c_str(), H5P_DEFAULT));
    clients_.push_back(h5::dims(open_dataset(group.get(), "means").get())[0]);
    checkpoints_.push_back(h5::dims(open_dataset(group.get(), "checkpoints").get())[0]);
    expected_.push_back(sim::total(read_ranges(group.get())));
    auto done_set = open_dataset(group.get(), "replications_done");
    const auto done = h5::read_block<std::uint64_t>(done_set.get(), 0, 1)[0];
    written_.push_back(done);
    committed_.push_back(done);
    summarized_.push_back(false);
    // rows past replications_done may be half-written: drop them
    h5::Handle rows(H5Gopen2(group.get(), "replications", H5P_DEFAULT));
    sim::for_each_column([&](const auto& column) {
      h5::set_rows(open_dataset(rows.get(), column.name).get(), done);
    });
  }
  last_flush_ = std::chrono::steady_clock::now();
}

ResultsWriter::~ResultsWriter() {
  try {
    if (file_) flush();  // not after a failed write: it abandoned the file
  } catch (...) {
    // a destructor must not throw; the rows not committed are redone on resume
  }
  row_sets_.clear();
  file_ = h5::Handle();  // closed before the lock goes
}

void ResultsWriter::close() {
  writing([&] {
    flush();
    for (auto& set : row_sets_) set.close();
    row_sets_.clear();
    file_.close();
  });
}

void ResultsWriter::append(std::size_t cell, const sim::ReplicationResult& result) {
  writing([&] {
    if (pending_.rows > 0 && pending_.cell != cell) write_pending();
    if (pending_.rows == 0) pending_.reset(cell, checkpoints_[cell], clients_[cell]);
    pending_.append(result);
    // up to the next chunk boundary, as a WriterThread's blocks are
    if (done(cell) == expected_[cell] ||
        pending_.rows == kChunkRows - written_[cell] % kChunkRows) {
      write_pending();
    }
  });
}

void ResultsWriter::append(const RowBlock& block) {
  writing([&] {
    write_pending();
    write(block);
  });
}

void ResultsWriter::write_pending() {
  if (pending_.rows == 0) return;
  // taken out first: writing may flush, and a flush writes what is pending
  auto block = std::exchange(pending_, RowBlock{});
  write(block);
  pending_ = std::move(block);  // its memory, for the next rows
  pending_.rows = 0;
}

void ResultsWriter::write(const RowBlock& block) {
  const auto c = block.cell;
  if (c != row_sets_cell_ || row_sets_.empty()) {
    row_sets_cell_ = c;
    row_sets_.clear();
    h5::Handle rows(H5Gopen2(file_.get(), (groups_[c] + "/replications").c_str(), H5P_DEFAULT));
    const auto access = h5::direct_chunk_access();
    sim::for_each_column([&](const auto& column) {
      row_sets_.emplace_back(H5Dopen2(rows.get(), column.name, access.get()));
    });
  }
  summary_of(c).add(block);
  const hsize_t first = written_[c], points = checkpoints_[c], m = clients_[c];
  auto set = row_sets_.begin();  // the datasets in table order
  block.for_each_column([&](const auto& column, const auto& values) {
    h5::write_rows((set++)->get(), first, columns_of(column, points, m), values);
  });
  written_[c] += block.rows;
  if (written_[c] == expected_[c] && summarize_) {
    // The cell is complete: summarise it now, while the run's later cells are
    // computed, and readers of the file see it at once.
    flush();
    row_sets_.clear();
    summarize(c);
  } else if (std::chrono::steady_clock::now() - last_flush_ >= kFlushInterval) {
    flush();
  }
}

void ResultsWriter::flush() {
  writing([&] {
    write_pending();
    // Rows first, then the counts that make them count: a kill (or a failed
    // write) between the two flushes leaves rows that resume simply redoes.
    h5::check(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), "H5Fflush");
    for (std::size_t c = 0; c < written_.size(); ++c) {
      if (committed_[c] == written_[c]) continue;
      auto done_set = open_dataset(file_.get(), groups_[c] + "/replications_done");
      h5::overwrite(done_set.get(), std::vector<std::uint64_t>{written_[c]});
      committed_[c] = written_[c];
    }
    h5::check(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), "H5Fflush");
    last_flush_ = std::chrono::steady_clock::now();
  });
}

CellSummary& ResultsWriter::summary_of(std::size_t cell) {
  if (summary_ && summary_cell_ == cell) return *summary_;
  // The rows an earlier run wrote, replayed in order: the summary is then
  // the one an uninterrupted run builds.
  summary_.emplace(checkpoints_[cell], expected_[cell]);
  summary_cell_ = cell;
  for (std::uint64_t first = 0; first < written_[cell]; first += kChunkRows) {
    summary_->add(read_rows(file_.get(), cell, groups_[cell], checkpoints_[cell], clients_[cell],
                            first, std::min<std::uint64_t>(kChunkRows, written_[cell] - first)));
  }
  return *summary_;
}

void ResultsWriter::summarize(std::size_t cell) {
  h5::Handle group(H5Gopen2(file_.get(), groups_[cell].c_str(), H5P_DEFAULT));
  const auto rows = written_[cell];
  const auto statistics = summary_of(cell).statistics([&](std::size_t series, std::size_t column) {
    std::vector<double> values;
    sim::for_each_column([&](const auto& c) {
      if (c.name != std::string_view(CellSummary::kSeries[series])) return;
      const auto set = open_dataset(group.get(), std::string("replications/") + c.name);
      values = read_column<sim::ElementOf<decltype(c)>>(set.get(), rows, column);
    });
    return values;
  });
  summary_.reset();
  for (std::size_t s = 0; s < CellSummary::kSeries.size(); ++s) {
    for (std::size_t k = 0; k < CellSummary::kStatistics.size(); ++k) {
      h5::overwrite(open_dataset(group.get(), fmt::format("summary/{}/{}", CellSummary::kSeries[s],
                                                          CellSummary::kStatistics[k]))
                        .get(),
                    statistics[s][k]);
    }
  }
  h5::check(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), "H5Fflush");
  summarized_[cell] = true;
}

void ResultsWriter::write_summaries() {
  writing([&] {
    flush();
    row_sets_.clear();
    for (std::size_t c = 0; c < written_.size(); ++c) {
      if (written_[c] == expected_[c] && summarize_ && !summarized_[c]) summarize(c);
    }
  });
}

template <class Step>
auto ResultsReader::reading(Step&& step) const -> decltype(step()) {
  try {
    return step();
  } catch (const h5::Error& e) {
    throw unreadable(e.what());
  } catch (const h5::BadAttribute& e) {
    throw unreadable(e.what());
  } catch (const nlohmann::json::exception& e) {
    throw unreadable(fmt::format("its experiment_canonical attribute: {}", e.what()));
  }
}

UnreadableOutput ResultsReader::unreadable(const std::string& why) const {
  return UnreadableOutput(
      fmt::format("'{}' is not a readable pfmab output: {}", path_.string(), why));
}

ResultsReader::ResultsReader(const std::filesystem::path& path) : path_(path) {
  h5::silence_errors();
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  if (type == std::filesystem::file_type::not_found) {
    throw UserError(fmt::format("results file '{}' does not exist", path.string()));
  }
  if (ec) throw unreadable(ec.message());
  // HDF5 would wait for ever on a FIFO's writer
  if (type != std::filesystem::file_type::regular) throw unreadable("not a regular file");
  reading([&] {
    const auto is_hdf5 = H5Fis_hdf5(path.c_str());
    h5::check(is_hdf5, "H5Fis_hdf5");
    if (is_hdf5 == 0) throw unreadable("not an HDF5 file");
    file_ = h5::Handle(
        H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, swmr_read_access().get()));
    if (!h5::has_attribute(file_.get(), "format")) {
      throw unreadable(fmt::format("no '{}' format attribute (not written by pfmab)", kFormat));
    }
    const auto older = [&](const std::string& format) {
      return UserError(fmt::format(
          "'{}' is a pfmab output of format '{}', this pfmab reads '{}' (rerun the experiment "
          "with --overwrite)",
          path.string(), format, kFormat));
    };
    try {
      if (const auto format = h5::read_string_attribute(file_.get(), "format"); format != kFormat) {
        throw older(format);
      }
    } catch (const h5::VariableLengthString&) {
      throw older("pfmab-results-4 or earlier");  // they stored strings variable-length
    }
    try {
      shard_ = sim::parse_shard(attribute("shard"));
    } catch (const UserError&) {
      throw unreadable(fmt::format("its shard attribute '{}' is not I/N", attribute("shard")));
    }
    const auto canonical = nlohmann::json::parse(attribute("experiment_canonical"));
    seed_ = canonical.at("seed").get<std::uint64_t>();
    replications_ = canonical.at("replications").get<std::uint64_t>();
    const auto& cells = canonical.at("cells");
    if (!cells.is_array() || cells.empty()) throw unreadable("its experiment has no cells");
    for (std::size_t c = 0; c < cells.size(); ++c) {
      StoredCell cell;
      cell.name = group_name(c);
      const auto& params = cells.at(c);
      cell.parameters = params;
      cell.algorithm = params.at("algorithm").get<std::string>();
      cell.rewards = params.at("rewards").get<std::string>();
      cell.schedule = params.at("schedule").get<std::string>();
      cell.alpha = params.at("alpha").get<double>();
      cell.horizon = params.at("horizon").get<std::uint64_t>();
      cell.clients = params.at("means").size();
      cell.arms = params.at("means").at(0).size();
      h5::Handle group(H5Gopen2(file_.get(), cell.name.c_str(), H5P_DEFAULT));
      cell.instance = h5::read_string_attribute(group.get(), "instance");
      cell.schedule_formula = h5::read_string_attribute(group.get(), "schedule_formula");
      cell.mode = h5::read_string_attribute(group.get(), "mode");
      cell.bounds = read_bounds(group.get(), cell.horizon);
      auto grid = open_dataset(group.get(), "checkpoints");
      if (h5::dims(grid.get()).size() != 1) throw unreadable(cell.name + "/checkpoints is not 1-D");
      cell.checkpoints = h5::read_block<std::uint64_t>(grid.get(), 0, h5::dims(grid.get())[0]);
      // before the rows' sizes: a writer adds rows, then counts them
      auto done = open_dataset(group.get(), "replications_done");
      cell.done = h5::read_block<std::uint64_t>(done.get(), 0, 1)[0];
      cell.ranges = read_ranges(group.get());
      check(cell, group.get());
      cells_.push_back(std::move(cell));
    }
  });
}

void ResultsReader::check(const StoredCell& cell, hid_t group) const {
  const auto means = h5::dims(open_dataset(group, "means").get());
  if (means != std::vector<hsize_t>{cell.clients, cell.arms}) {
    throw unreadable(fmt::format("{}/means is not {} x {} as its experiment says", cell.name,
                                 cell.clients, cell.arms));
  }
  if (cell.checkpoints.empty()) throw unreadable(cell.name + " has no checkpoints");
  std::uint64_t next = 0;
  for (const auto& r : cell.ranges) {
    if (r.first < next || r.end < r.first || r.end > replications_) {
      throw unreadable(fmt::format(
          "{}/replication_ranges holds [{}, {}), not a range of [0, {}) after the previous one",
          cell.name, r.first, r.end, replications_));
    }
    next = r.end;
  }
  if (cell.done > cell.expected()) {
    throw unreadable(fmt::format("{} counts {} replications done of its {}", cell.name, cell.done,
                                 cell.expected()));
  }
  h5::Handle rows(H5Gopen2(group, "replications", H5P_DEFAULT));
  sim::for_each_column([&](const auto& column) {
    const auto columns = columns_of(column, cell.checkpoints.size(), cell.clients);
    const auto shape = h5::dims(open_dataset(rows.get(), column.name).get());
    const bool fits = columns == 0 ? shape.size() == 1 : shape.size() == 2 && shape[1] == columns;
    if (!fits || shape[0] < cell.done) {
      throw unreadable(fmt::format(
          "{}/replications/{} is not {} rows of {} value{} (replications_done)", cell.name,
          column.name, cell.done, std::max<hsize_t>(columns, 1), columns > 1 ? "s" : ""));
    }
  });
}

std::string ResultsReader::attribute(const std::string& name) const {
  return reading([&] { return h5::read_string_attribute(file_.get(), name); });
}

bool ResultsReader::partial() const {
  const sim::ReplicationRange whole{0, replications()};
  return shard().whole() && std::any_of(cells_.begin(), cells_.end(), [&](const StoredCell& c) {
           return c.ranges != std::vector<sim::ReplicationRange>{whole};
         });
}

RowBlock ResultsReader::rows(std::size_t cell, std::uint64_t first, std::uint64_t count) const {
  const auto& info = cells_[cell];
  return reading([&] {
    return read_rows(file_.get(), cell, info.name, info.checkpoints.size(), info.clients, first,
                     count);
  });
}

std::vector<sim::ReplicationResult> ResultsReader::read(std::size_t cell, std::uint64_t first,
                                                        std::uint64_t count) const {
  const auto block = rows(cell, first, count);
  std::vector<sim::ReplicationResult> out;
  for (std::size_t r = 0; r < block.rows; ++r) out.push_back(block.result(r));
  return out;
}

std::pair<std::vector<CellReport>, std::string> read_reports(const ResultsReader& file) {
  constexpr std::uint64_t block = 256;
  std::vector<CellReport> reports;
  Digest digest;
  for (std::size_t c = 0; c < file.cells().size(); ++c) {
    const auto& stored = file.cells()[c];
    CellReport description;
    describe_algorithm(description, stored.parameters);
    description.alpha = stored.alpha;
    description.clients = stored.clients;
    description.arms = stored.arms;
    description.horizon = stored.horizon;
    description.schedule = stored.schedule_formula;
    description.rewards = stored.rewards;
    description.mode = stored.mode;
    description.bounds = stored.bounds;
    // a shard asks for its share; a partial merge for all, of which it lacks some
    description.requested = file.partial() ? file.replications() : stored.expected();
    CellAccumulator accumulator(description);
    for (std::uint64_t first = 0; first < stored.done; first += block) {
      for (const auto& r : file.read(c, first, std::min(block, stored.done - first))) {
        accumulator.add(r);
        r.add_to(digest);
      }
    }
    reports.push_back(accumulator.report());
  }
  return {reports, digest.hex()};
}

}  // namespace pfmab::io
