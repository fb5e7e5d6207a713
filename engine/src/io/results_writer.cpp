#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "pfmab/io/results_file.hpp"
#include "pfmab/util/error.hpp"

#include "io/cell_summary.hpp"
#include "io/hdf5.hpp"
#include "io/output_file.hpp"
#include "io/results_layout.hpp"
#include "io/time_used_layout.hpp"

namespace pfmab::io {
namespace {

using Statistics = std::vector<std::vector<std::vector<double>>>;  // CellSummary::statistics

// When rows reach the file. The rows of a chunk wait in memory until the
// chunk is complete, and it is written once, whole and compressed; rows
// written are flushed and counted (replications_done) once this many rows,
// or this many completed cells (their count and summary), wait. So
// what the file holds, and its size, depends on the experiment only, not
// on the moments its rows reached the writer (the machine's speed or load):
// HDF5 places some of its records at each flush. A flush costs a walk of
// HDF5's metadata cache, and a sweep of many short cells completes
// thousands per second.
constexpr std::uint64_t kRowsAtMost = 1024;
constexpr std::size_t kCompletedAtMost = 64;
// Rows that waited this long are written (a chunk in parts: RowSets) or
// flushed and counted anyway: the work a kill -9 can lose. Only rows
// slower than that depend on timing.
constexpr auto kWaitAtMost = std::chrono::seconds(60);
// Rows read back at a time to replay a cell into its summary.
constexpr std::uint64_t kReplayRows = ResultsWriter::kChunkRows;

// Writes a complete new output (every group and dataset, no rows) under a
// temporary name (NewOutput), then moves it to its own: a kill or a failure
// while it is being built leaves no half-made output. Returns the lock of the
// new file.
OutputLock build_new_output(const OutputTarget& target, const Experiment& experiment,
                            std::span<const sim::Cell> cells, theory::Games& games,
                            const sim::Shard& shard, const StopToken& stop) {
  NewOutput built(target);
  try {
    create_output(built.path(), experiment, cells, games, shard, stop);
  } catch (const h5::Error& e) {
    throw SystemError(
        fmt::format("cannot create output '{}': {}", target.shown.string(), e.what()));
  }
  return built.commit();
}

// The canonical form but for how many replications each cell asks.
nlohmann::json without_replications(nlohmann::json canonical) {
  canonical.erase("replications");
  return canonical;
}

// What a refusal to continue an output advises, naming the options as the
// caller does.
std::string replace_or_choose(const OptionNames& names) {
  return fmt::format("use {} to replace it, or choose another {}", names.overwrite, names.output);
}

// Refuses to grow what cannot grow: a shard (whose share of a larger count
// is another set of replications), a partial merge, or a cell asked for
// fewer replications than the output holds.
void check_growth(const std::filesystem::path& path, const ResultsReader& existing,
                  const Experiment& experiment, const sim::Shard& shard, const OptionNames& names) {
  const auto again = replace_or_choose(names);
  if (!shard.whole() || !existing.shard().whole()) {
    throw UserError(fmt::format(
        "output '{}' holds shard {} of this experiment with other replication counts: a shard "
        "does not grow (run the shards anew, or grow their merge); {}",
        path.string(), existing.shard().text(), again));
  }
  for (std::size_t c = 0; c < experiment.cells.size(); ++c) {
    const auto held = existing.cells()[c].requested;
    if (experiment.replications(c) < held) {
      throw UserError(fmt::format(
          "output '{}' holds {} replications of cell {}, more than the {} asked: ask for {} or "
          "more to continue or grow it, or {}",
          path.string(), held, c, experiment.replications(c), held, again));
    }
  }
}

}  // namespace

// The open output and the rows on their way to it.
class ResultsWriter::Impl {
 public:
  Impl(const std::filesystem::path& path, const Experiment& experiment,
       std::span<const sim::Cell> cells, theory::Games& games, bool overwrite,
       const sim::Shard& shard, const OptionNames& names, const StopToken& stop);
  Impl(const NewOutput& merged, std::span<const std::vector<sim::ReplicationRange>> ranges,
       const std::string& merged_from);
  ~Impl();

  void close();
  std::size_t cells() const { return written_.size(); }
  std::size_t checkpoints(std::size_t cell) const { return checkpoints_[cell]; }
  std::size_t clients(std::size_t cell) const { return clients_[cell]; }
  std::uint64_t rows_to_chunk_end(std::size_t cell, std::uint64_t row) const {
    return chunk_[cell] - row % chunk_[cell];
  }
  std::uint64_t done(std::size_t cell) const {
    return written_[cell] + (pending_.rows > 0 && pending_.cell == cell ? pending_.rows : 0);
  }
  std::uint64_t chunk_rows(std::size_t cell) const { return chunk_[cell]; }
  // Whether rows of `cell` up to row `end` complete a chunk or the cell.
  bool ends_chunk(std::size_t cell, std::uint64_t end) const {
    return end == expected_[cell] || end % chunk_[cell] == 0;
  }
  bool resumed() const { return resumed_; }
  void append(std::size_t cell, const sim::ReplicationResult& result);
  void append(const RowBlock& block, std::span<const std::byte> filtered);
  void add_time_used(std::size_t cell, const sim::TimeUsed& used);
  void flush();
  void write_summaries();

 private:
  // `fresh`: the output was created by this writer, so holds no rows
  void open(const std::filesystem::path& path, Readers readers, bool fresh);
  // Runs `step`; an HDF5 failure in it abandons the file and becomes a
  // SystemError naming the output.
  template <class Step>
  void writing(Step&& step);
  // Makes `cell` the cell of the pending rows (writing those of another).
  void pend(std::size_t cell);
  // Writes the pending rows if they complete a chunk or waited too long.
  void write_pending_if_due();
  void write_pending();
  void write(const RowBlock& block, std::span<const std::byte> filtered = {});
  // Flushes the rows written, then records them as done and writes the
  // summaries of the cells they complete, then flushes that.
  void commit();
  // The summary being built of `cell`: started, from the rows already in
  // the file, if it is not the current one.
  CellSummary& summary_of(std::size_t cell);
  // The statistics of a complete cell, for its summary datasets.
  Statistics statistics_of(std::size_t cell);

  std::filesystem::path shown_;       // the output's name in messages
  std::optional<OutputClaim> claim_;  // released last, once the file is closed
  OutputLock lock_;
  h5::Handle file_;
  std::vector<std::string> groups_;       // cells/NNNN
  std::vector<std::size_t> clients_;      // per cell
  std::vector<std::size_t> checkpoints_;  // per cell
  std::vector<std::uint64_t> chunk_;      // rows of a chunk, per cell, as created
  std::vector<std::uint64_t> written_;    // rows in the datasets, per cell
  std::vector<std::uint64_t> committed_;  // rows recorded in replications_done
  std::vector<std::uint64_t> expected_;   // rows of a complete cell (its ranges' total)
  std::vector<bool> summarized_;          // summary datasets written by this writer
  // per cell, what its rows written took, recorded with replications_done
  // (none: the output does not record it)
  std::vector<std::optional<sim::TimeUsed>> used_;
  bool summarize_ = true;                 // not a shard
  bool resumed_ = false;
  RowBlock pending_;  // rows of a chunk not yet complete, not yet written
  std::chrono::steady_clock::time_point pending_since_;  // its first row's arrival
  std::vector<std::size_t> uncommitted_;  // cells with rows written since the last commit
  // cells written to their end since the last commit, with their summary
  std::vector<std::pair<std::size_t, Statistics>> completed_;
  std::size_t row_sets_cell_ = 0;  // the cell whose datasets are open
  std::optional<RowSets> row_sets_;
  std::uint64_t rows_written_ = 0;  // since the last commit
  std::chrono::steady_clock::time_point first_written_;  // since the last commit
  std::size_t summary_cell_ = 0;
  std::optional<CellSummary> summary_;
};

template <class Step>
void ResultsWriter::Impl::writing(Step&& step) {
  try {
    step();
  } catch (const h5::Error& e) {
    if (row_sets_) row_sets_->abandon();
    file_.abandon();
    throw SystemError(fmt::format("cannot write output '{}': {}", shown_.string(), e.what()));
  }
}

ResultsWriter::Impl::Impl(const std::filesystem::path& path, const Experiment& experiment,
                          std::span<const sim::Cell> cells, theory::Games& games, bool overwrite,
                          const sim::Shard& shard, const OptionNames& names, const StopToken& stop)
    : shown_(path) {
  h5::silence_errors();
  const auto target = check_output(path, experiment.files, names);
  claim_.emplace(target);  // before the file is read: another run may be writing it
  const auto again = replace_or_choose(names);
  bool grows = false;  // the same experiment with more replications
  if (target.exists && !overwrite) {
    {
      const auto existing = [&] {
        try {
          return ResultsReader(path, names);
        } catch (const UnreadableOutput& e) {
          throw UserError(fmt::format("{} ({})", e.what(), again));
        }
      }();
      const auto held = nlohmann::json::parse(existing.attribute("experiment_canonical"));
      if (without_replications(held) != without_replications(experiment.canonical)) {
        throw UserError(fmt::format(
            "output '{}' holds the results of a different experiment (from {}, created {}); {}",
            path.string(), existing.attribute("source"), existing.attribute("created"), again));
      }
      grows = held != experiment.canonical;
      if (grows) check_growth(path, existing, experiment, shard, names);
      if (existing.shard() != shard) {
        throw UserError(fmt::format("output '{}' holds shard {} of this experiment, not {}; {}",
                                    path.string(), existing.shard().text(), shard.text(), again));
      }
      if (existing.partial()) {
        throw UserError(fmt::format(
            "output '{}' is a partial merge of this experiment's shards and cannot be continued; "
            "merge all the shards again, or use {}",
            path.string(), names.overwrite));
      }
      // A shard continues the replications it was made with: the split is
      // the estimated costs' where cells have fewer replications than there
      // are shards (sim::split), which another version may estimate
      // otherwise.
      if (!grows) {
        const auto planned = experiment.ranges_of(shard);
        for (std::size_t c = 0; c < planned.size(); ++c) {
          const auto& held = existing.cells()[c].ranges;
          if (held != std::vector{planned[c]}) {
            throw UserError(fmt::format(
                "output '{}' holds other replications of cell {} for shard {} than this version "
                "of pfmab gives that shard, [{}, {}) (its cost estimates changed): run every "
                "shard of the sweep with one version; {}",
                path.string(), c, shard.text(), planned[c].first, planned[c].end, again));
          }
        }
      }
    }  // closed before it is reopened for writing
    lock_ = OutputLock(path, names);
    if (grows) {
      writing([&] { grow_output(path, experiment); });
    }
    resumed_ = true;
  } else {
    lock_ = build_new_output(target, experiment, cells, games, shard, stop);
  }
  writing([&] { open(path, Readers::allowed, !resumed_); });
}

ResultsWriter::Impl::Impl(const NewOutput& merged,
                          std::span<const std::vector<sim::ReplicationRange>> ranges,
                          const std::string& merged_from)
    : shown_(merged.target().shown) {
  h5::silence_errors();
  writing([&] {
    record_merge(merged.path(), ranges, merged_from);
    open(merged.path(), Readers::none, false);
  });
}

void ResultsWriter::Impl::open(const std::filesystem::path& path, Readers readers, bool fresh) {
  file_ = open_for_writing(path, readers);
  summarize_ = sim::Shard{}.text() == h5::read_string_attribute(file_.get(), "shard");
  const auto cells =
      nlohmann::json::parse(h5::read_string_attribute(file_.get(), "experiment_canonical"))["cells"]
          .size();
  for (std::size_t c = 0; c < cells; ++c) {
    groups_.push_back(group_name(c));
    h5::Handle group(H5Gopen2(file_.get(), groups_[c].c_str(), H5P_DEFAULT));
    clients_.push_back(h5::dims(open_dataset(group.get(), "means").get())[0]);
    checkpoints_.push_back(h5::dims(open_dataset(group.get(), "checkpoints").get())[0]);
    chunk_.push_back(read_chunk_rows(group.get()));
    expected_.push_back(sim::total(read_ranges(group.get())));
    const auto done = read_done(group.get());
    written_.push_back(done);
    committed_.push_back(done);
    summarized_.push_back(false);
    used_.push_back(read_time_used(group.get()));
    // rows past replications_done may be half-written
    if (!fresh) truncate_rows(group.get(), done);
  }
}

ResultsWriter::Impl::~Impl() {
  try {
    if (file_) flush();  // not after a failed write: it abandoned the file
  } catch (...) {
    // a destructor must not throw; the rows not committed are redone on resume
  }
  row_sets_.reset();
  file_ = h5::Handle();  // closed before the lock goes
}

void ResultsWriter::Impl::close() {
  writing([&] {
    flush();
    if (row_sets_) row_sets_->close();
    row_sets_.reset();
    file_.close();
  });
}

void ResultsWriter::Impl::append(std::size_t cell, const sim::ReplicationResult& result) {
  writing([&] {
    pend(cell);
    pending_.append(result);
    write_pending_if_due();
  });
}

void ResultsWriter::Impl::append(const RowBlock& block, std::span<const std::byte> filtered) {
  writing([&] {
    const auto c = block.cell;
    if (pending_.rows > 0 && pending_.cell != c) write_pending();
    if (pending_.rows == 0 && ends_chunk(c, written_[c] + block.rows)) {
      // a chunk's rows, or its last ones, in one block: as they are
      return write(block, filtered);
    }
    pend(c);
    pending_.append(block);
    write_pending_if_due();
  });
}

void ResultsWriter::Impl::pend(std::size_t cell) {
  if (pending_.rows > 0 && pending_.cell != cell) write_pending();
  if (pending_.rows > 0) return;
  pending_.reset(cell, checkpoints_[cell], clients_[cell]);
  pending_since_ = std::chrono::steady_clock::now();
}

void ResultsWriter::Impl::write_pending_if_due() {
  const auto c = pending_.cell;
  if (ends_chunk(c, written_[c] + pending_.rows) ||
      std::chrono::steady_clock::now() - pending_since_ >= kWaitAtMost) {
    write_pending();
  }
}

void ResultsWriter::Impl::write_pending() {
  if (pending_.rows == 0) return;
  // taken out first: while it is written, no rows are pending (done() counts them once)
  auto block = std::exchange(pending_, RowBlock{});
  write(block);
  pending_ = std::move(block);  // its memory, for the next rows
  pending_.rows = 0;
}

void ResultsWriter::Impl::write(const RowBlock& block, std::span<const std::byte> filtered) {
  const auto c = block.cell;
  if (c != row_sets_cell_ || !row_sets_) {
    row_sets_cell_ = c;
    row_sets_.reset();
    h5::Handle group(H5Gopen2(file_.get(), groups_[c].c_str(), H5P_DEFAULT));
    row_sets_.emplace(group.get(), c, checkpoints_[c], clients_[c], chunk_[c], written_[c]);
  }
  summary_of(c).add(block);
  if (written_[c] == committed_[c]) uncommitted_.push_back(c);
  // row by row, as the run's report adds them: the file then says what the
  // report of the run that wrote it said
  if (auto& used = used_[c]) {
    for (std::size_t r = 0; r < block.rows; ++r) *used += block.used_by(r);
  }
  row_sets_->write(block, written_[c], written_[c] + block.rows == expected_[c], filtered);
  written_[c] += block.rows;
  if (written_[c] == expected_[c]) {
    // The cell is complete: summarised now, while its rows are at hand and
    // the run's later cells are computed; counted with it at the commit.
    row_sets_.reset();
    if (summarize_) completed_.emplace_back(c, statistics_of(c));
  }
  if (rows_written_ == 0) first_written_ = std::chrono::steady_clock::now();
  rows_written_ += block.rows;
  if (rows_written_ >= kRowsAtMost || completed_.size() >= kCompletedAtMost ||
      std::chrono::steady_clock::now() - first_written_ >= kWaitAtMost) {
    commit();
  }
}

void ResultsWriter::Impl::add_time_used(std::size_t cell, const sim::TimeUsed& used) {
  if (!used_[cell]) return;
  *used_[cell] += used;
  if (std::find(uncommitted_.begin(), uncommitted_.end(), cell) == uncommitted_.end()) {
    uncommitted_.push_back(cell);
  }
}

void ResultsWriter::Impl::flush() {
  writing([&] {
    write_pending();
    commit();
  });
}

void ResultsWriter::Impl::commit() {
  // Rows first, then the counts that make them count: a kill (or a failed
  // write) between the two flushes leaves rows that resume simply redoes.
  h5::check(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), "H5Fflush");
  for (const auto c : std::exchange(uncommitted_, {})) {
    h5::Handle group(H5Gopen2(file_.get(), groups_[c].c_str(), H5P_DEFAULT));
    write_done(group.get(), written_[c]);
    if (used_[c]) write_time_used(group.get(), *used_[c]);
    committed_[c] = written_[c];
  }
  for (const auto& [c, statistics] : std::exchange(completed_, {})) {
    h5::Handle group(H5Gopen2(file_.get(), groups_[c].c_str(), H5P_DEFAULT));
    write_summary(group.get(), statistics);
    summarized_[c] = true;
  }
  h5::check(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), "H5Fflush");
  rows_written_ = 0;
}

CellSummary& ResultsWriter::Impl::summary_of(std::size_t cell) {
  if (summary_ && summary_cell_ == cell) return *summary_;
  // The rows an earlier run wrote, replayed in order: the summary is then
  // the one an uninterrupted run builds.
  summary_.emplace(checkpoints_[cell], expected_[cell]);
  summary_cell_ = cell;
  h5::Handle group(H5Gopen2(file_.get(), groups_[cell].c_str(), H5P_DEFAULT));
  for (std::uint64_t first = 0; first < written_[cell]; first += kReplayRows) {
    summary_->add(read_rows(group.get(), cell, checkpoints_[cell], clients_[cell], first,
                            std::min<std::uint64_t>(kReplayRows, written_[cell] - first)));
  }
  return *summary_;
}

Statistics ResultsWriter::Impl::statistics_of(std::size_t cell) {
  h5::Handle group(H5Gopen2(file_.get(), groups_[cell].c_str(), H5P_DEFAULT));
  const auto rows = written_[cell];
  auto statistics = summary_of(cell).statistics([&](std::size_t series, std::size_t column) {
    return read_series_column(group.get(), cell, checkpoints_[cell], clients_[cell], series, rows,
                              column);
  });
  summary_.reset();
  return statistics;
}

void ResultsWriter::Impl::write_summaries() {
  writing([&] {
    flush();
    row_sets_.reset();
    for (std::size_t c = 0; c < written_.size(); ++c) {
      if (written_[c] != expected_[c] || !summarize_ || summarized_[c]) continue;
      completed_.emplace_back(c, statistics_of(c));
      if (completed_.size() >= kCompletedAtMost) commit();
    }
    commit();
  });
}

ResultsWriter::ResultsWriter(const std::filesystem::path& path, const Experiment& experiment,
                             std::span<const sim::Cell> cells, theory::Games& games, bool overwrite,
                             const sim::Shard& shard, const OptionNames& names,
                             const StopToken& stop)
    : impl_(std::make_unique<Impl>(path, experiment, cells, games, overwrite, shard, names, stop)) {
}

ResultsWriter::ResultsWriter(const NewOutput& merged,
                             std::span<const std::vector<sim::ReplicationRange>> ranges,
                             const std::string& merged_from)
    : impl_(std::make_unique<Impl>(merged, ranges, merged_from)) {}

ResultsWriter::~ResultsWriter() = default;

void ResultsWriter::close() { impl_->close(); }
std::size_t ResultsWriter::cells() const { return impl_->cells(); }
std::size_t ResultsWriter::checkpoints(std::size_t cell) const { return impl_->checkpoints(cell); }
std::size_t ResultsWriter::clients(std::size_t cell) const { return impl_->clients(cell); }
std::uint64_t ResultsWriter::rows_to_chunk_end(std::size_t cell, std::uint64_t row) const {
  return impl_->rows_to_chunk_end(cell, row);
}
std::uint64_t ResultsWriter::chunk_rows(std::size_t cell) const { return impl_->chunk_rows(cell); }
bool ResultsWriter::completes_chunk(std::size_t cell, std::uint64_t end) const {
  return impl_->ends_chunk(cell, end);
}
std::uint64_t ResultsWriter::done(std::size_t cell) const { return impl_->done(cell); }
bool ResultsWriter::resumed() const { return impl_->resumed(); }
void ResultsWriter::append(std::size_t cell, const sim::ReplicationResult& result) {
  impl_->append(cell, result);
}
void ResultsWriter::append(const RowBlock& block) { impl_->append(block, {}); }
void ResultsWriter::append(const RowBlock& block, std::span<const std::byte> filtered) {
  impl_->append(block, filtered);
}
void ResultsWriter::add_time_used(std::size_t cell, const sim::TimeUsed& used) {
  impl_->add_time_used(cell, used);
}
void ResultsWriter::flush() { impl_->flush(); }
void ResultsWriter::write_summaries() { impl_->write_summaries(); }

}  // namespace pfmab::io
