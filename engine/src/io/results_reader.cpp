#include <algorithm>
#include <charconv>
#include <memory>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "pfmab/io/results_file.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"

#include "io/cell_summary.hpp"
#include "io/hdf5.hpp"
#include "io/results_layout.hpp"
#include "io/row_records.hpp"
#include "io/time_used_layout.hpp"

namespace pfmab::io {
namespace {

// N of "pfmab-results-N"; 0 for anything else (not a format pfmab wrote).
unsigned format_version(std::string_view format) {
  constexpr std::string_view prefix = "pfmab-results-";
  if (!format.starts_with(prefix)) return 0;
  format.remove_prefix(prefix.size());
  unsigned version = 0;
  const auto [end, error] = std::from_chars(format.data(), format.data() + format.size(), version);
  return error == std::errc{} && end == format.data() + format.size() ? version : 0;
}

}  // namespace

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

ResultsReader::ResultsReader(ResultsReader&&) noexcept = default;
ResultsReader& ResultsReader::operator=(ResultsReader&&) noexcept = default;
ResultsReader::~ResultsReader() = default;

ResultsReader::ResultsReader(const std::filesystem::path& path, const OptionNames& names)
    : path_(path) {
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
    file_ = std::make_unique<h5::Handle>(open_for_reading(path));
    if (!h5::has_attribute(file_->get(), "format")) {
      throw unreadable(fmt::format("no '{}' format attribute (not written by pfmab)", kFormat));
    }
    std::string format;
    try {
      format = h5::read_string_attribute(file_->get(), "format");
    } catch (const h5::VariableLengthString&) {
      // not read: libhdf5's reader of variable-length strings fails badly on
      // damaged files
      throw UserError(fmt::format(
          "'{}' has a variable-length format attribute, as pfmab-results-4 and earlier wrote "
          "it (or another program, such as h5py); this pfmab reads '{}' (rerun the experiment "
          "with {})",
          path.string(), kFormat, names.overwrite));
    }
    if (format != kFormat) {
      const auto shown = excerpt(format, 60);
      throw UserError(
          format_version(format) > format_version(kFormat)
              ? fmt::format("'{}' is a pfmab output of format '{}', newer than this pfmab reads "
                            "('{}'): read it with the pfmab that wrote it (its pfmab_version "
                            "attribute)",
                            path.string(), shown, kFormat)
              : fmt::format("'{}' is a pfmab output of format '{}', this pfmab reads '{}' "
                            "(rerun the experiment with {})",
                            path.string(), shown, kFormat, names.overwrite));
    }
    try {
      shard_ = sim::parse_shard(attribute("shard"));
    } catch (const UserError&) {
      throw unreadable(fmt::format("its shard attribute '{}' is not I/N", attribute("shard")));
    }
    const auto canonical = nlohmann::json::parse(attribute("experiment_canonical"));
    seed_ = canonical.at("seed").get<std::uint64_t>();
    if (const auto skipped = canonical.find("refused"); skipped != canonical.end()) {
      for (const auto& refused : skipped->get_ref<const nlohmann::json::array_t&>()) {
        refused_.push_back(RefusedCell::from_json(refused));
      }
    }
    const auto& cells = canonical.at("cells");
    const auto& replications = canonical.at("replications");
    if (!cells.is_array() || cells.empty()) throw unreadable("its experiment has no cells");
    if (!replications.is_array() || replications.size() != cells.size()) {
      throw unreadable("its experiment does not give each cell its replications");
    }
    for (std::size_t c = 0; c < cells.size(); ++c) {
      StoredCell cell;
      cell.name = group_name(c);
      const auto& params = cells.at(c);
      cell.parameters = params;
      cell.requested = replications.at(c).get<std::uint64_t>();
      cell.algorithm = params.at("algorithm").get<std::string>();
      cell.rewards = params.at("rewards").get<std::string>();
      cell.schedule = params.at("schedule").get<std::string>();
      cell.alpha = params.at("alpha").get<double>();
      cell.horizon = params.at("horizon").get<std::uint64_t>();
      cell.clients = params.at("means").size();
      cell.arms = params.at("means").at(0).size();
      h5::Handle group(H5Gopen2(file_->get(), cell.name.c_str(), H5P_DEFAULT));
      cell.instance = h5::read_string_attribute(group.get(), "instance");
      cell.schedule_formula = h5::read_string_attribute(group.get(), "schedule_formula");
      cell.mode = h5::read_string_attribute(group.get(), "mode");
      cell.bounds = read_bounds(file_->get(), group.get(), cell.horizon);
      auto grid = open_dataset(group.get(), "checkpoints");
      if (h5::dims(grid.get()).size() != 1) throw unreadable(cell.name + "/checkpoints is not 1-D");
      cell.checkpoints = h5::read_block<std::uint64_t>(grid.get(), 0, h5::dims(grid.get())[0]);
      // before the rows' sizes: a writer adds rows, then counts them
      cell.done = read_done(group.get());
      cell.ranges = read_ranges(group.get());
      cell.used = read_time_used(group.get());
      check(cell, group);
      cells_.push_back(std::move(cell));
    }
  });
}

void ResultsReader::check(const StoredCell& cell, const h5::Handle& group) const {
  const auto means = h5::dims(open_dataset(group.get(), "means").get());
  if (means != std::vector<hsize_t>{cell.clients, cell.arms}) {
    throw unreadable(fmt::format("{}/means is not {} x {} as its experiment says", cell.name,
                                 cell.clients, cell.arms));
  }
  if (cell.checkpoints.empty()) throw unreadable(cell.name + " has no checkpoints");
  std::uint64_t next = 0;
  for (const auto& r : cell.ranges) {
    if (r.first < next || r.end < r.first || r.end > cell.requested) {
      throw unreadable(fmt::format(
          "{}/replication_ranges holds [{}, {}), not a range of [0, {}) after the previous one",
          cell.name, r.first, r.end, cell.requested));
    }
    next = r.end;
  }
  if (cell.done > cell.expected()) {
    throw unreadable(fmt::format("{} counts {} replications done of its {}", cell.name, cell.done,
                                 cell.expected()));
  }
  const std::vector<hsize_t> summary{CellSummary::kSeries.size(), CellSummary::kStatistics.size(),
                                     cell.checkpoints.size()};
  if (h5::dims(open_dataset(group.get(), "summary").get()) != summary) {
    throw unreadable(fmt::format("{}/summary is not {} x {} x {} (series, statistic, checkpoint)",
                                 cell.name, summary[0], summary[1], summary[2]));
  }
  const auto rows = open_dataset(group.get(), "replications");
  const RowRecords records(cell.checkpoints.size(), cell.clients);
  const h5::Handle stored(H5Dget_type(rows.get()));
  const auto shape = h5::dims(rows.get());
  if (H5Tequal(stored.get(), records.type().get()) <= 0 || shape.size() != 1 ||
      shape[0] < cell.done) {
    throw unreadable(fmt::format(
        "{}/replications is not {} or more records of this cell's columns ({} checkpoints, {} "
        "clients; replications_done)",
        cell.name, cell.done, cell.checkpoints.size(), cell.clients));
  }
}

std::string ResultsReader::attribute(const std::string& name) const {
  return reading([&] { return h5::read_string_attribute(file_->get(), name); });
}

bool ResultsReader::partial() const {
  return shard().whole() && std::any_of(cells_.begin(), cells_.end(), [&](const StoredCell& c) {
           return c.ranges != std::vector<sim::ReplicationRange>{{0, c.requested}};
         });
}

RowBlock ResultsReader::rows(std::size_t cell, std::uint64_t first, std::uint64_t count) const {
  const auto& info = cells_[cell];
  return reading([&] {
    h5::Handle group(H5Gopen2(file_->get(), info.name.c_str(), H5P_DEFAULT));
    return read_rows(group.get(), cell, info.checkpoints.size(), info.clients, first, count);
  });
}

std::vector<std::vector<std::vector<double>>> ResultsReader::summary(std::size_t cell) const {
  return reading([&] {
    h5::Handle group(H5Gopen2(file_->get(), cells_[cell].name.c_str(), H5P_DEFAULT));
    return read_summary(group.get());
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
    description.algorithm = stored.algorithm;
    const auto values = CellValues::from_json(stored.parameters, stored.instance);
    description.keys = cell_keys(values, stored.mode);
    description.comm_cost = values.real("comm_cost");
    description.alpha = stored.alpha;
    description.clients = stored.clients;
    description.arms = stored.arms;
    description.horizon = stored.horizon;
    description.schedule = stored.schedule_formula;
    description.rewards = stored.rewards;
    description.mode = stored.mode;
    description.bounds = stored.bounds;
    // a shard asks for its share; a partial merge for all, of which it lacks some
    description.requested = file.partial() ? stored.requested : stored.expected();
    CellAccumulator accumulator(description);
    for (std::uint64_t first = 0; first < stored.done; first += block) {
      for (const auto& r : file.read(c, first, std::min(block, stored.done - first))) {
        accumulator.add(r);
        r.add_to(digest);
      }
    }
    auto report = accumulator.report();
    report.used = stored.used.value_or(sim::TimeUsed{});  // rows read back carry no time
    reports.push_back(std::move(report));
  }
  return {reports, digest.hex()};
}

}  // namespace pfmab::io
