#include "pfmab/io/results_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <limits>

#include <fmt/format.h>

#include "pfmab/theory/bounds.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/version.hpp"

namespace pfmab::io {
namespace {

// 2: fidelity mode and the paper's bounds per cell; 3: the algorithm's
// options per cell, the row datasets without a fill value; 4: shards (the
// root's shard, each cell's replication_ranges)
constexpr const char* kFormat = "pfmab-results-4";
constexpr auto kFlushInterval = std::chrono::milliseconds(500);
constexpr hsize_t kChunkRows = ResultsWriter::kChunkRows;

// Every per-replication dataset under replications/ (its rows are the
// replications of the cell's replication_ranges, in order).
constexpr const char* kRowDatasets[] = {
    "regret",    "local_reward",  "global_reward", "mixed_reward",      "comm_count",
    "fixed_arm", "fixed_optimal", "phases",        "exploration_pulls", "fixation_slot"};

std::string group_name(std::size_t cell) { return fmt::format("cells/{:04}", cell); }

h5::Handle latest_format_access() {
  h5::Handle access(H5Pcreate(H5P_FILE_ACCESS));
  // SWMR needs the latest file format.
  h5::check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST),
            "H5Pset_libver_bounds");
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
  for (const auto& series : sim::kRealSeries)
    h5::create_rows<double>(rows.get(), series.name, c, kChunkRows);
  h5::create_rows<std::uint64_t>(rows.get(), "comm_count", c, kChunkRows);
  h5::create_rows<std::int32_t>(rows.get(), "fixed_arm", m, kChunkRows);
  h5::create_rows<std::uint8_t>(rows.get(), "fixed_optimal", m, kChunkRows);
  h5::create_rows<std::uint64_t>(rows.get(), "phases", 0, kChunkRows);
  h5::create_rows<std::uint64_t>(rows.get(), "exploration_pulls", 0, kChunkRows);
  h5::create_rows<std::int64_t>(rows.get(), "fixation_slot", 0, kChunkRows);

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
  auto read = [&]<class T>(const char* name, hsize_t columns, std::vector<T>& to) {
    to = h5::read_block<T>(open_dataset(rows.get(), name).get(), first, count, 0, columns);
  };
  RowBlock block;
  block.reset(cell, points, m);
  block.rows = count;
  for (std::size_t s = 0; s < block.real.size(); ++s) {
    read(sim::kRealSeries[s].name, points, block.real[s]);
  }
  read("comm_count", points, block.comm_count);
  read("fixed_arm", m, block.fixed_arm);
  read("fixed_optimal", m, block.fixed_optimal);
  read("phases", 1, block.phases);
  read("exploration_pulls", 1, block.exploration_pulls);
  read("fixation_slot", 1, block.fixation_slot);
  return block;
}

// Writes a complete new output (every group and dataset, no rows) under a
// temporary sibling name, then moves it to `path`: a kill while it is being
// built leaves no half-made output. Returns the lock of the new file.
OutputLock build_new_output(const std::filesystem::path& path, const Experiment& experiment,
                            std::span<const sim::Cell> cells, bool replace,
                            const sim::Shard& shard) {
  // One temporary name per output, locked first: two runs never build it
  // together, and one killed while building leaves it for the next to reuse.
  const auto temp = temporary_output(path);
  {
    const int made = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (made < 0) {
      throw UserError(
          fmt::format("cannot create output '{}' ({})", path.string(), std::strerror(errno)));
    }
    ::close(made);
  }
  OutputLock lock(temp);
  {
    h5::Handle created(
        H5Fcreate(temp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, latest_format_access().get()));
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
  }  // closed: complete on disk
  move_output(temp, path, replace);
  return lock;
}

}  // namespace

std::filesystem::path temporary_output(const std::filesystem::path& path) {
  return path.parent_path() / fmt::format(".{}.pfmab-new", path.filename().string());
}

void move_output(const std::filesystem::path& temp, const std::filesystem::path& path,
                 bool replace) {
  // link, not rename, for a new output: it never replaces one that another
  // run made meanwhile. A lock on `temp` follows the file (same inode).
  const int moved =
      replace ? ::rename(temp.c_str(), path.c_str()) : ::link(temp.c_str(), path.c_str());
  const int error = errno;
  ::unlink(temp.c_str());
  if (moved != 0) {
    throw UserError(
        fmt::format("cannot create output '{}' ({})", path.string(), std::strerror(error)));
  }
}

OutputLock::OutputLock(const std::filesystem::path& path)
    : fd_(::open(path.c_str(), O_RDWR | O_CLOEXEC)) {
  if (fd_ < 0) {
    throw UserError(fmt::format("cannot open output '{}' for writing ({})", path.string(),
                                std::strerror(errno)));
  }
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  if (::fcntl(fd_, F_OFD_SETLK, &lock) != 0) {
    ::close(std::exchange(fd_, -1));
    throw UserError(fmt::format(
        "output '{}' is being written by another pfmab process (wait for it, or choose another -o)",
        path.string()));
  }
}

OutputLock& OutputLock::operator=(OutputLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);
}

ResultsWriter::ResultsWriter(const std::filesystem::path& path, const Experiment& experiment,
                             std::span<const sim::Cell> cells, bool overwrite,
                             const sim::Shard& shard) {
  h5::silence_errors();
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (exists && !overwrite) {
    {
      const ResultsReader existing(path);  // throws UserError if not a pfmab output
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
    OutputLock replaced;  // nobody may be writing what --overwrite replaces
    if (exists) replaced = OutputLock(path);
    lock_ = build_new_output(path, experiment, cells, exists, shard);
  }
  open(path);
}

ResultsWriter::ResultsWriter(const std::filesystem::path& path, OutputLock lock,
                             std::span<const std::vector<sim::ReplicationRange>> ranges,
                             const std::string& merged_from)
    : lock_(std::move(lock)) {
  h5::silence_errors();
  {
    // Not yet in SWMR mode, which allows no new attributes or datasets.
    auto access = latest_format_access();
    hbool_t clear = true;  // a shard killed while writing left its marks
    h5::check(H5Pset(access.get(), "clear_status_flags", &clear), "H5Pset clear_status_flags");
    h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, access.get()));
    h5::write_attribute(file.get(), "shard", sim::Shard{}.text());
    h5::write_attribute(file.get(), "merged", now_utc());
    h5::write_attribute(file.get(), "merged_from", merged_from);
    for (std::size_t c = 0; c < ranges.size(); ++c) {
      h5::Handle group(H5Gopen2(file.get(), group_name(c).c_str(), H5P_DEFAULT));
      write_ranges(group.get(), ranges[c]);
    }
  }
  open(path);
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
    for (const auto* name : kRowDatasets) h5::set_rows(open_dataset(rows.get(), name).get(), done);
  }
  last_flush_ = std::chrono::steady_clock::now();
}

ResultsWriter::~ResultsWriter() {
  try {
    flush();
  } catch (...) {
    // a destructor must not throw; the rows not committed are redone on resume
  }
  row_sets_.clear();
  file_ = h5::Handle();  // closed before the lock goes
}

void ResultsWriter::append(std::size_t cell, const sim::ReplicationResult& result) {
  if (pending_.rows > 0 && pending_.cell != cell) write_pending();
  if (pending_.rows == 0) pending_.reset(cell, checkpoints_[cell], clients_[cell]);
  pending_.append(result);
  // up to the next chunk boundary, as a WriterThread's blocks are
  if (done(cell) == expected_[cell] ||
      pending_.rows == kChunkRows - written_[cell] % kChunkRows) {
    write_pending();
  }
}

void ResultsWriter::append(const RowBlock& block) {
  write_pending();
  write(block);
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
    for (const auto* name : kRowDatasets) {
      row_sets_.emplace_back(H5Dopen2(rows.get(), name, access.get()));
    }
  }
  summary_of(c).add(block);
  const hsize_t first = written_[c], points = checkpoints_[c], m = clients_[c];
  // row_sets_ holds the datasets in kRowDatasets order
  auto write_set = [&](std::size_t dataset, hsize_t columns, const auto& values) {
    h5::write_rows(row_sets_[dataset].get(), first, columns, values);
  };
  for (std::size_t s = 0; s < block.real.size(); ++s) write_set(s, points, block.real[s]);
  write_set(4, points, block.comm_count);
  write_set(5, m, block.fixed_arm);
  write_set(6, m, block.fixed_optimal);
  write_set(7, 0, block.phases);
  write_set(8, 0, block.exploration_pulls);
  write_set(9, 0, block.fixation_slot);
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
  write_pending();
  // Rows first, then the counts that make them count: a kill between the two
  // flushes leaves rows that resume simply redoes.
  h5::check(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), "H5Fflush");
  for (std::size_t c = 0; c < written_.size(); ++c) {
    if (committed_[c] == written_[c]) continue;
    auto done_set = open_dataset(file_.get(), groups_[c] + "/replications_done");
    h5::overwrite(done_set.get(), std::vector<std::uint64_t>{written_[c]});
    committed_[c] = written_[c];
  }
  h5::check(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), "H5Fflush");
  last_flush_ = std::chrono::steady_clock::now();
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
    const auto set =
        open_dataset(group.get(), std::string("replications/") + CellSummary::kSeries[series]);
    return series < std::size(sim::kRealSeries)
               ? read_column<double>(set.get(), rows, column)
               : read_column<std::uint64_t>(set.get(), rows, column);
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
  flush();
  row_sets_.clear();
  for (std::size_t c = 0; c < written_.size(); ++c) {
    if (written_[c] == expected_[c] && summarize_ && !summarized_[c]) summarize(c);
  }
}

ResultsReader::ResultsReader(const std::filesystem::path& path) {
  h5::silence_errors();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw UserError(fmt::format("results file '{}' does not exist", path.string()));
  }
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    throw UserError(
        fmt::format("'{}' is not an HDF5 file (not a pfmab output; use --overwrite to replace it)",
                    path.string()));
  }
  file_ = h5::Handle(
      H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, latest_format_access().get()));
  if (!h5::has_attribute(file_.get(), "format")) {
    throw UserError(fmt::format(
        "'{}' is not a pfmab output (no '{}' format attribute; use --overwrite to replace it)",
        path.string(), kFormat));
  }
  if (const auto format = h5::read_string_attribute(file_.get(), "format"); format != kFormat) {
    throw UserError(fmt::format(
        "'{}' is a pfmab output of format '{}', this pfmab reads '{}' (rerun the experiment "
        "with --overwrite)",
        path.string(), format, kFormat));
  }
  const auto canonical = nlohmann::json::parse(attribute("experiment_canonical"));
  for (std::size_t c = 0; c < canonical["cells"].size(); ++c) {
    StoredCell cell;
    cell.name = group_name(c);
    const auto& params = canonical["cells"][c];
    cell.parameters = params;
    cell.algorithm = params["algorithm"];
    cell.rewards = params["rewards"];
    cell.schedule = params["schedule"];
    cell.alpha = params["alpha"];
    cell.horizon = params["horizon"];
    cell.clients = params["means"].size();
    cell.arms = params["means"][0].size();
    h5::Handle group(H5Gopen2(file_.get(), cell.name.c_str(), H5P_DEFAULT));
    cell.instance = h5::read_string_attribute(group.get(), "instance");
    cell.schedule_formula = h5::read_string_attribute(group.get(), "schedule_formula");
    cell.mode = h5::read_string_attribute(group.get(), "mode");
    cell.bounds = read_bounds(group.get(), cell.horizon);
    auto grid = open_dataset(group.get(), "checkpoints");
    cell.checkpoints = h5::read_block<std::uint64_t>(grid.get(), 0, h5::dims(grid.get())[0]);
    auto done = open_dataset(group.get(), "replications_done");
    cell.done = h5::read_block<std::uint64_t>(done.get(), 0, 1)[0];
    cell.ranges = read_ranges(group.get());
    cells_.push_back(std::move(cell));
  }
}

std::string ResultsReader::attribute(const std::string& name) const {
  return h5::read_string_attribute(file_.get(), name);
}

std::uint64_t ResultsReader::seed() const {
  return nlohmann::json::parse(attribute("experiment_canonical"))["seed"];
}

std::uint64_t ResultsReader::replications() const {
  return nlohmann::json::parse(attribute("experiment_canonical"))["replications"];
}

sim::Shard ResultsReader::shard() const { return sim::parse_shard(attribute("shard")); }

bool ResultsReader::partial() const {
  const sim::ReplicationRange whole{0, replications()};
  return shard().whole() && std::any_of(cells_.begin(), cells_.end(), [&](const StoredCell& c) {
           return c.ranges != std::vector<sim::ReplicationRange>{whole};
         });
}

RowBlock ResultsReader::rows(std::size_t cell, std::uint64_t first, std::uint64_t count) const {
  const auto& info = cells_[cell];
  return read_rows(file_.get(), cell, info.name, info.checkpoints.size(), info.clients, first,
                   count);
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
