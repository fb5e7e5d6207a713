#include "pfmab/io/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "pfmab/algorithms/registry.hpp"
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

// What tells a cell from its neighbours in the usual sweeps, as words: the
// algorithm, "alpha 0.5", "C 10" (empty for an algorithm that never pays for
// communication), "T 1e6", and the means file by its name alone, made safe
// for a terminal.
constexpr std::size_t kNameFields = 5;
std::array<std::string, kNameFields> name_fields(const sim::Cell& cell) {
  const auto& spec = cell.spec();
  const auto ignored = algorithms::find_algorithm(cell.algorithm().name()).ignores;
  const bool pays = std::none_of(ignored.begin(), ignored.end(),
                                 [](const auto& ignore) { return ignore.key == "comm_cost"; });
  return {std::string(cell.algorithm().name()), fmt::format("alpha {}", spec.alpha),
          pays ? fmt::format("C {}", spec.comm_cost) : std::string(),
          fmt::format("T {}", horizon_text(cell.horizon())),
          excerpt(std::filesystem::path(spec.instance_name).stem().string())};
}

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
                                std::span<const sim::ReplicationRange> ranges,
                                std::span<const std::uint64_t> kept) {
  std::vector<std::array<std::string, kNameFields>> fields;
  for (const auto& cell : cells) fields.push_back(name_fields(cell));
  std::array<bool, kNameFields> differ{};
  for (std::size_t f = 0; f < kNameFields; ++f) {
    differ[f] = std::any_of(fields.begin(), fields.end(),
                            [&](const auto& other) { return other[f] != fields.front()[f]; });
  }
  const bool any = std::find(differ.begin(), differ.end(), true) != differ.end();
  std::vector<CellWork> work;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    std::string name;
    for (std::size_t f = 0; f < kNameFields; ++f) {
      if ((differ[f] || !any) && !fields[c][f].empty())
        name += (name.empty() ? "" : " ") + fields[c][f];
    }
    const auto& instance = cells[c].instance();
    work.push_back({std::move(name), std::string(cells[c].algorithm().name()),
                    fmt::format("{}x{}", instance.clients(), instance.arms()),
                    sim::replication_cost(cells[c]), ranges[c].count(),
                    kept.empty() ? 0 : kept[c]});
  }
  return work;
}

ProgressTracker::ProgressTracker(std::vector<CellWork> cells, std::uint64_t in_flight)
    : cells_(std::move(cells)), in_flight_(in_flight) {
  std::map<std::string, std::size_t> algorithms;
  std::map<std::pair<std::string, std::string>, std::size_t> groups;
  for (const auto& cell : cells_) {
    const auto a = algorithms.try_emplace(cell.algorithm, algorithms.size()).first->second;
    const auto g = groups.try_emplace({cell.algorithm, cell.game}, groups.size()).first->second;
    group_of_.push_back(g);
    groups_.resize(groups.size());
    groups_[g].algorithm = a;
    groups_[g].total += cell.cost * static_cast<double>(cell.replications);
    total_ += cell.kept + cell.replications;
    kept_ += cell.kept;
  }
  algorithms_ = algorithms.size();
  // Until a replication is done, the first cell that has any is running.
  while (current_ + 1 < cells_.size() && cells_[current_].replications == 0) ++current_;
  while (flying_ < in_flight_ && taken_cell_ < cells_.size()) take_off();
}

void ProgressTracker::take_off() {
  while (taken_cell_ < cells_.size() && taken_ == cells_[taken_cell_].replications) {
    ++taken_cell_;
    taken_ = 0;
  }
  if (taken_cell_ == cells_.size()) return;
  ++taken_;
  ++flying_;
  groups_[group_of_[taken_cell_]].in_flight += cells_[taken_cell_].cost;
}

void ProgressTracker::finished(std::size_t cell, double seconds) {
  const std::lock_guard lock(mutex_);
  auto& group = groups_[group_of_[cell]];
  group.done += cells_[cell].cost;
  ++group.handed;
  if (flying_ > 0) {  // it was the first in flight
    group.in_flight -= cells_[cell].cost;
    --flying_;
    take_off();
  }
  double gained = 0.0;
  for (const auto& g : groups_) gained += g.behind() - g.charged;
  for (auto& g : groups_) {
    g.seconds += (seconds - last_) * (g.behind() - g.charged) / gained;
    g.charged = g.behind();
  }
  ++done_;
  last_ = seconds;
  current_ = cell;
}

std::vector<double> ProgressTracker::rates() const {
  // What each algorithm has measured, over its groups that have handed on a
  // replication (a group only in flight has a share of the time before it).
  std::vector<double> seconds(algorithms_, 0.0), work(algorithms_, 0.0);
  for (const auto& g : groups_) {
    if (g.handed == 0) continue;
    seconds[g.algorithm] += g.seconds;
    work[g.algorithm] += g.behind();
  }
  // The rate of the algorithm but `a` that holds the middle of the others'
  // work measured: the rate of most of the work, not of a cheap algorithm
  // whose replications are mostly overhead, nor of one the estimate puts at
  // a thousandth of its cost (its work is then a thousandth of its time).
  const auto middle = [&](std::size_t a) -> std::optional<double> {
    std::vector<std::pair<double, double>> others;  // rate, work
    double all = 0.0;
    for (std::size_t b = 0; b < algorithms_; ++b) {
      if (b == a || work[b] <= 0.0) continue;
      others.emplace_back(seconds[b] / work[b], work[b]);
      all += work[b];
    }
    std::sort(others.begin(), others.end());
    double below = 0.0;
    for (const auto& [rate, w] : others) {
      below += w;
      if (below >= all / 2) return rate;
    }
    return std::nullopt;
  };
  std::vector<double> rates;
  for (const auto& g : groups_) {
    const auto a = g.algorithm;
    const double own = g.behind() > 0.0 ? g.seconds / g.behind() : 0.0;
    // what the group's rate is taken as before its own is known: its
    // algorithm's on its other groups, else the other algorithms' middle
    const double elsewhere_seconds = seconds[a] - (g.handed > 0 ? g.seconds : 0.0);
    const double elsewhere_work = work[a] - (g.handed > 0 ? g.behind() : 0.0);
    const double prior =
        elsewhere_work > 0.0 ? elsewhere_seconds / elsewhere_work : middle(a).value_or(own);
    // its own, trusted as its replications handed on outweigh a window in
    // flight: the first ones' time is shared with the cells before them
    const double trust =
        g.handed == 0 ? 0.0
                      : static_cast<double>(g.handed) / static_cast<double>(g.handed + in_flight_);
    rates.push_back(trust * own + (1.0 - trust) * prior);
  }
  return rates;
}

ProgressTracker::Estimate ProgressTracker::at(double seconds) const {
  const std::lock_guard lock(mutex_);
  Estimate estimate{kept_ + done_, total_, std::nullopt, current_};
  if (done_ == 0) return estimate;
  const auto rate = rates();
  double left = -(seconds - last_);
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    left += rate[g] * (groups_[g].total - groups_[g].behind());
  }
  estimate.remaining = std::max(0.0, left);
  return estimate;
}

ProgressDisplay::ProgressDisplay(std::vector<CellWork> cells, std::uint64_t in_flight,
                                 ProgressStyle style, std::chrono::milliseconds period,
                                 ProgressCallback report)
    : tracker_(std::move(cells), in_flight),
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

void ProgressDisplay::finished(std::size_t cell) {
  if (style_ != ProgressStyle::none) tracker_.finished(cell, seconds());
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
