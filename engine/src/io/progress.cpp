#include "pfmab/io/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "pfmab/io/report.hpp"
#include "pfmab/sim/cost.hpp"
#include "pfmab/util/excerpt.hpp"

namespace pfmab::io {
namespace {

// T as a person writes a round number, "1e6", "2.5e6"; any other in full.
std::string horizon_text(std::uint64_t horizon) {
  int zeros = 0;
  for (; horizon >= 10 && horizon % 10 == 0; horizon /= 10) ++zeros;
  const std::string digits = std::to_string(horizon);
  if (zeros < 3) return digits + std::string(zeros, '0');
  const auto exponent = zeros + static_cast<int>(digits.size()) - 1;
  return digits.size() == 1 ? fmt::format("{}e{}", digits, exponent)
                            : fmt::format("{}.{}e{}", digits[0], digits.substr(1), exponent);
}

// How the progress line names each algorithm of `described`: a Python
// class ("module:Class") by its class alone, unless another module's class
// of the sweep has that name too; so that what tells its cells apart, after
// it, fits a terminal's line.
std::map<std::string, std::string> algorithm_names(std::span<const CellReport> described) {
  const auto short_name = [](const std::string& name) {
    const auto colon = name.rfind(':');
    return colon == std::string::npos ? name : name.substr(colon + 1);
  };
  std::map<std::string, std::set<std::string>> named_alike;  // short name -> algorithms
  for (const auto& cell : described) named_alike[short_name(cell.algorithm)].insert(cell.algorithm);
  std::map<std::string, std::string> names;
  for (const auto& [name, algorithms] : named_alike) {
    for (const auto& algorithm : algorithms) {
      names[algorithm] = algorithms.size() == 1 ? name : algorithm;
    }
  }
  return names;
}

// A key's value in a cell's name: the algorithm alone, "alpha 0.5", "C 10",
// "T 1e6", the means file by its shown name (io::shown_keys), any other as
// "radius 2"; made safe for a terminal.
std::string named(const CellKey& key) {
  const auto& value = key.value;
  const std::string text = value.is_string()         ? value.get<std::string>()
                           : value.is_number_float() ? fmt::format("{}", value.get<double>())
                                                     : value.dump();
  if (key.name == "algorithm" || key.name == "instance") return excerpt(text);
  if (key.name == "horizon") return "T " + horizon_text(value.get<std::uint64_t>());
  if (key.name == "comm_cost") return "C " + text;
  return key.name + " " + excerpt(text);
}

// The order of a cell's name: these first, then the others in parameters()
// order, the means file last.
constexpr std::array<std::string_view, 4> kNamedFirst{"algorithm", "alpha", "comm_cost", "horizon"};
std::size_t place_in_name(const std::string& key) {
  if (key == "instance") return kNamedFirst.size() + 1;
  const auto at = std::find(kNamedFirst.begin(), kNamedFirst.end(), key);
  return at == kNamedFirst.end() ? kNamedFirst.size()
                                 : static_cast<std::size_t>(at - kNamedFirst.begin());
}

// The keys that tell the cells apart: the algorithm where it varies, and
// every key that varies among one algorithm's cells (a key that varies
// only with the algorithm, as the mode its rewards are drawn with, says
// nothing the algorithm does not); for one cell, or cells alike in every
// key, the algorithm, alpha, C, T and the means file.
std::set<std::string> telling_keys(std::span<const CellReport> described) {
  std::set<std::string> telling;
  std::map<std::string, std::vector<CellReport>> by_algorithm;
  for (const auto& cell : described) by_algorithm[cell.algorithm].push_back(cell);
  if (by_algorithm.size() > 1) telling.insert("algorithm");
  for (const auto& [algorithm, cells] : by_algorithm) {
    for (auto& key : varied_keys(cells)) telling.insert(std::move(key));
  }
  if (telling.empty()) {
    telling.insert(kNamedFirst.begin(), kNamedFirst.end());
    telling.insert("instance");
  }
  return telling;
}

// The seconds of sim::replication_cost's unit, a nanosecond of the machine
// of bench/README.md.
constexpr double kEstimateUnit = 1e-9;

// The columns of the terminal stderr is, 80 if it does not say.
std::size_t terminal_width() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

}  // namespace

ProgressStyle progress_style(bool quiet) {
  if (quiet) return ProgressStyle::none;
  return isatty(STDERR_FILENO) == 1 ? ProgressStyle::redrawn : ProgressStyle::logged;
}

std::vector<CellWork> cell_work(std::span<const sim::Cell> cells,
                                std::span<const CellValues> values,
                                std::span<const sim::ReplicationRange> ranges,
                                std::span<const std::uint64_t> kept) {
  // each cell's keys as a summary shows them (only its keys are used)
  std::vector<CellReport> described(cells.size());
  for (std::size_t c = 0; c < cells.size(); ++c) {
    described[c].algorithm = cells[c].algorithm().name();
    described[c].keys =
        cell_keys(values[c], std::string(sim::to_string(cells[c].drawn_fidelity())));
  }
  const auto telling = telling_keys(described);
  auto shown = shown_keys(described);
  const auto algorithms = algorithm_names(described);
  for (auto& keys : shown) {
    for (auto& key : keys) {
      if (key.name == "algorithm") key.value = algorithms.at(key.value.get<std::string>());
    }
  }
  std::vector<CellWork> work;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    std::vector<const CellKey*> keys;
    for (const auto& key : shown[c]) {
      if (telling.contains(key.name) && !key.value.is_null()) keys.push_back(&key);
    }
    std::stable_sort(keys.begin(), keys.end(), [](const CellKey* a, const CellKey* b) {
      return place_in_name(a->name) < place_in_name(b->name);
    });
    std::string name;
    for (const auto* key : keys) {
      if (!name.empty()) name += ' ';
      name += named(*key);
    }
    const auto& cell = cells[c];
    const auto& instance = cell.instance();
    work.push_back({std::move(name), std::string(cell.algorithm().name()),
                    fmt::format("{}x{}", instance.clients(), instance.arms()),
                    sim::replication_cost(cell), ranges[c].count(), kept.empty() ? 0 : kept[c],
                    cell.algorithm().cost_modelled()});
  }
  return work;
}

ProgressTracker::ProgressTracker(std::vector<CellWork> cells, std::uint64_t workers)
    : cells_(std::move(cells)), workers_(std::max<std::uint64_t>(workers, 1)) {
  std::map<std::string, std::size_t> algorithms;
  std::map<std::pair<std::string, std::string>, std::size_t> groups;
  for (const auto& cell : cells_) {
    const auto [a, new_algorithm] = algorithms.try_emplace(cell.algorithm, algorithms.size());
    if (new_algorithm) modelled_.push_back(cell.modelled);
    const auto [g, new_group] = groups.try_emplace({cell.algorithm, cell.game}, groups.size());
    if (new_group) algorithm_of_.push_back(a->second);
    group_of_.push_back(g->second);
    total_ += cell.kept + cell.replications;
    kept_ += cell.kept;
  }
  by_cell_.resize(cells_.size());
  by_group_.resize(groups.size());
  by_algorithm_.resize(algorithms.size());
  // Until a replication is done, the first cell that has any is running.
  while (current_ + 1 < cells_.size() && cells_[current_].replications == 0) ++current_;
}

void ProgressTracker::finished(std::size_t cell, double seconds, const sim::TimeUsed& used) {
  const std::lock_guard lock(mutex_);
  const double cost = cells_[cell].cost;
  by_cell_[cell].add(used.wall_seconds, cost);
  by_group_[group_of_[cell]].add(used.wall_seconds, cost);
  by_algorithm_[algorithm_of_[group_of_[cell]]].add(used.wall_seconds, cost);
  run_.add(used.wall_seconds, cost);
  run_cpu_ += used.cpu_seconds;
  last_ = std::max(last_, seconds);
}

void ProgressTracker::handed_on(std::size_t cell) {
  const std::lock_guard lock(mutex_);
  ++handed_;
  current_ = cell;
}

std::vector<double> ProgressTracker::seconds_per_replication() const {
  // The machine's seconds per unit: the rate of the modelled algorithm that
  // holds the middle of their work measured. Before any has run, the
  // estimate's nanosecond stretched by the load the replications done show:
  // their wall seconds over their processor seconds, over the workers (each
  // may have waited for every other's GIL, or for other jobs).
  const double stretch =
      run_cpu_ > 0.0 ? run_.seconds / (run_cpu_ * static_cast<double>(workers_)) : 1.0;
  std::vector<std::pair<double, double>> rates;  // rate, work
  double all = 0.0;
  for (std::size_t a = 0; a < by_algorithm_.size(); ++a) {
    if (!modelled_[a] || by_algorithm_[a].replications == 0) continue;
    rates.emplace_back(by_algorithm_[a].rate(), by_algorithm_[a].cost);
    all += by_algorithm_[a].cost;
  }
  std::sort(rates.begin(), rates.end());
  double machine = kEstimateUnit * std::max(1.0, stretch), below = 0.0;
  for (const auto& [rate, work] : rates) {
    below += work;
    if (below >= all / 2) {
      machine = rate;
      break;
    }
  }
  std::vector<double> begun(by_group_.size(), 0.0);  // cells measured, by group
  for (std::size_t c = 0; c < cells_.size(); ++c) {
    if (by_cell_[c].replications > 0) ++begun[group_of_[c]];
  }
  std::vector<double> seconds;
  for (std::size_t c = 0; c < cells_.size(); ++c) {
    const auto g = group_of_[c];
    const auto& group = by_group_[g];
    const auto a = algorithm_of_[g];
    const auto& algorithm = by_algorithm_[a];
    double rate = group.replications > 0       ? group.rate()
                  : algorithm.replications > 0 ? algorithm.rate()
                                               : machine;
    // the group's cells begun, one sample each of its rate, and the machine's
    if (group.replications > 0 && modelled_[a]) {
      rate = (begun[g] * rate + machine) / (begun[g] + 1);
    }
    // the cell's own mean, with one replication's worth of its group's
    const auto& own = by_cell_[c];
    seconds.push_back((own.seconds + rate * cells_[c].cost) /
                      static_cast<double>(own.replications + 1));
  }
  return seconds;
}

ProgressTracker::Estimate ProgressTracker::at(double seconds) const {
  const std::lock_guard lock(mutex_);
  Estimate estimate{kept_ + handed_, total_, std::nullopt, current_};
  if (run_.replications == 0) return estimate;
  const auto each = seconds_per_replication();
  // What is left, and what of it the replications running have done:
  // `workers_` - 1 of the first not done (in the run's order) besides the
  // one begun in place of the last done, each taken as in_flight_done done.
  double left = 0.0, flying = 0.0;
  std::uint64_t running = 0;
  for (std::size_t c = 0; c < cells_.size(); ++c) {
    const auto to_run =
        cells_[c].replications - std::min(cells_[c].replications, by_cell_[c].replications);
    left += each[c] * static_cast<double>(to_run);
    const auto here = std::min(to_run, workers_ - 1 - running);
    flying += in_flight_done * each[c] * static_cast<double>(here);
    running += here;
  }
  // the run's parallelism: the work done over the time it took, at most
  // the workers (an overestimate of the work in flight may say more)
  const double parallel =
      last_ > 0.0 ? std::min((run_.seconds + flying) / last_, static_cast<double>(workers_))
                  : static_cast<double>(workers_);
  estimate.remaining = std::max(0.0, (left - flying) / parallel - (seconds - last_));
  return estimate;
}

ProgressDisplay::ProgressDisplay(std::vector<CellWork> cells, std::uint64_t workers,
                                 ProgressStyle style, std::chrono::milliseconds period,
                                 ProgressCallback report)
    : tracker_(std::move(cells), workers),
      style_(style),
      report_(std::move(report)),
      start_(std::chrono::steady_clock::now()) {
  if (style == ProgressStyle::none) return;
  if (style == ProgressStyle::reported && !report_) {
    throw std::logic_error("ProgressDisplay: the reported style needs a callback");
  }
  if (period.count() == 0) {
    period = style == ProgressStyle::logged ? std::chrono::milliseconds(60'000)
                                            : std::chrono::milliseconds(250);
  }
  thread_ = std::thread([this, period] {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, period, [this] { return stop_; })) draw();
    if (style_ == ProgressStyle::reported) draw();  // where it ended
    if (style_ == ProgressStyle::redrawn) {
      fmt::print(stderr, "\r\033[K");
      std::fflush(stderr);
    }
  });
}

ProgressDisplay::~ProgressDisplay() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void ProgressDisplay::finished(std::size_t cell, const sim::TimeUsed& used) {
  if (style_ != ProgressStyle::none) tracker_.finished(cell, seconds(), used);
}

void ProgressDisplay::handed_on(std::size_t cell) {
  if (style_ != ProgressStyle::none) tracker_.handed_on(cell);
}

double ProgressDisplay::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string duration_text(double seconds) {
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s < 100) return fmt::format("{}s", s);
  if (s < 100 * 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s / 60 % 60);
}

ProgressReport ProgressDisplay::now() const {
  ProgressReport report;
  report.elapsed = seconds();
  const auto estimate = tracker_.at(report.elapsed);
  report.done = estimate.done;
  report.total = estimate.total;
  report.remaining = estimate.remaining;
  report.cell = estimate.cell;
  report.cells = tracker_.cells().size();
  if (report.cells > 0) report.cell_name = tracker_.cells()[estimate.cell].name;
  return report;
}

namespace {

// The share of the run's estimated time behind it, not of its replications:
// a sweep's last cells may cost a thousand times its first.
double time_share(const ProgressReport& report) {
  const double elapsed = report.elapsed;
  return report.remaining && elapsed + *report.remaining > 0.0
             ? elapsed / (elapsed + *report.remaining)
             : 0.0;
}

std::string eta_text(const ProgressReport& report) {
  return report.remaining ? "ETA " + duration_text(*report.remaining) : "ETA -";
}

// Characters, not bytes: a means file's name may be UTF-8.
std::size_t columns(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

}  // namespace

std::string logged_line(const ProgressReport& report) {
  const std::string cell = report.cells == 0 ? ""
                                             : fmt::format("cell {}/{}: {}", report.cell + 1,
                                                           report.cells, report.cell_name);
  return fmt::format("pfmab: {}/{} replications  {:.1f}% done  {}  {}", report.done, report.total,
                     100.0 * time_share(report), eta_text(report), cell);
}

std::string redrawn_line(const ProgressReport& report, std::size_t width) {
  constexpr int bar_width = 20;
  const int filled = static_cast<int>(std::lround(bar_width * time_share(report)));
  const auto bar = fmt::format("[{:=<{}}{:<{}}] ", "", filled, "", bar_width - filled);
  const auto counts = fmt::format("{}/{}  {}", report.done, report.total, eta_text(report));
  const auto number = report.cells == 0
                          ? std::string()
                          : fmt::format("cell {}/{}: ", report.cell + 1, report.cells);
  const auto& name = report.cell_name;
  // A line longer than the terminal would wrap, and \r redraw only its end.
  // What does not fit is left out, the least useful first: the bar (the ETA
  // says as much), then the cell's number, then the end of its name.
  const auto fits = [&](const std::string& line) { return columns(line) <= width; };
  for (const auto& line :
       {bar + counts + "  " + number + name, counts + "  " + number + name, counts + "  " + name}) {
    if (fits(line)) return line;
  }
  std::string line = counts + "  " + name;
  while (line.size() > counts.size() && !fits(line + "...")) {
    unsigned char last = 0;  // a whole character goes: its continuation bytes, then its lead
    do {
      last = static_cast<unsigned char>(line.back());
      line.pop_back();
    } while ((last & 0xC0) == 0x80);
  }
  // the counts and the ETA stay, even on a terminal narrower than them
  return line.size() > counts.size() ? line + "..." : counts;
}

void ProgressDisplay::draw() const {
  const auto report = now();
  if (style_ == ProgressStyle::reported) {
    report_(report);
    return;
  }
  if (style_ == ProgressStyle::logged) {
    fmt::print(stderr, "{}\n", logged_line(report));
  } else {
    fmt::print(stderr, "\r{}\033[K", redrawn_line(report, terminal_width() - 1));
  }
  std::fflush(stderr);
}

}  // namespace pfmab::io
