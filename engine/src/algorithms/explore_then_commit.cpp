// explore-then-commit: the smallest federated algorithm, and the worked
// example of docs/algorithms.md, "How to add an algorithm". In its first
// phase every client pulls each arm n times; the server averages the
// clients' sample means; every client then commits to the arm of its best
// mixed estimate alpha mu_hat_{k,m} + (1 - alpha) mu_bar_k and plays it to
// the horizon. (A client that sits the first phase out, under partial
// participation, explores in the next phase it takes part in.)
//
// This file is the whole algorithm; registering it is the line
// X(explore_then_commit) in registry.cpp.

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include "pfmab/algorithms/registry.hpp"
#include "pfmab/sim/phased.hpp"

namespace pfmab::algorithms {
namespace {

// Its one option, declared as the engine declares its own: a file or flag
// giving it to another algorithm is refused by the engine's one check.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const std::array<io::Parameter, 1> options{{
    {.key = "algorithm.pulls_per_arm", .flags = "--pulls-per-arm", .type = io::ValueType::whole,
     .fallback = "100", .sweeps = true,
     .help = "explore-then-commit: pulls of each arm by each client before it commits",
     .least = 1},
}};
#pragma GCC diagnostic pop
const OptionGroup etc_options{"explore-then-commit", options};

// One replication's clients and server.
class ExploreThenCommitState final : public sim::PhasedState {
 public:
  ExploreThenCommitState(const sim::Cell& cell, std::uint64_t pulls_per_arm)
      : alpha_(cell.algorithm_alpha()),
        pulls_per_arm_(pulls_per_arm),
        clients_(cell.instance().clients()),
        arms_(cell.instance().arms()),
        every_arm_(arms_),
        sums_(clients_ * arms_, 0.0),
        reported_(clients_, false),
        global_means_(arms_, 0.0),
        committed_(clients_) {
    std::iota(every_arm_.begin(), every_arm_.end(), 0u);
  }

  bool finished() const override {
    return std::all_of(committed_.begin(), committed_.end(), [](auto arm) { return arm; });
  }

  // A client that has not committed pulls every arm n times, round robin.
  void plan(std::size_t m, std::vector<sim::Run>& runs) override {
    if (committed_[m]) return;
    sim::Run run;
    run.arms = every_arm_;
    run.rounds = pulls_per_arm_;
    runs.push_back(run);
  }

  void record(std::size_t m, std::uint32_t arm, std::uint64_t /*pulls*/, double sum) override {
    sums_[m * arms_ + arm] += sum;
  }

  // Before it commits a client waits on arm 0.
  std::uint32_t exploit_arm(std::size_t m) const override { return committed_[m].value_or(0); }

  // mu_bar_k: the mean over every client that has explored of its sample
  // mean of arm k (the sums are of n pulls each).
  void aggregate(std::span<const std::uint32_t> participants) override {
    for (const auto m : participants) reported_[m] = true;
    const auto n = static_cast<double>(pulls_per_arm_);
    for (std::size_t k = 0; k < arms_; ++k) {
      double total = 0.0;
      double reporting = 0.0;
      for (std::size_t m = 0; m < clients_; ++m) {
        if (!reported_[m]) continue;
        total += sums_[m * arms_ + k] / n;
        reporting += 1.0;
      }
      global_means_[k] = total / reporting;
    }
  }

  // Commit to the best mixed estimate, lowest index on ties.
  void update(std::size_t m) override {
    if (committed_[m]) return;
    const auto n = static_cast<double>(pulls_per_arm_);
    std::uint32_t best = 0;
    double best_value = -std::numeric_limits<double>::infinity();
    for (std::uint32_t k = 0; k < arms_; ++k) {
      const double mixed = alpha_ * sums_[m * arms_ + k] / n + (1.0 - alpha_) * global_means_[k];
      if (mixed > best_value) {
        best = k;
        best_value = mixed;
      }
    }
    committed_[m] = best;
  }

  void end_phase() override {}

  std::optional<std::uint32_t> fixed_arm(std::size_t m) const override { return committed_[m]; }

 private:
  double alpha_;  // the algorithm's
  std::uint64_t pulls_per_arm_;
  std::size_t clients_, arms_;
  std::vector<std::uint32_t> every_arm_;  // 0, 1, ..., K - 1
  std::vector<double> sums_;              // per (client, arm), row-major
  std::vector<bool> reported_;            // per client: has explored
  std::vector<double> global_means_;      // mu_bar_k, as last broadcast
  std::vector<std::optional<std::uint32_t>> committed_;
};

class ExploreThenCommit final : public sim::Algorithm {
 public:
  explicit ExploreThenCommit(std::uint64_t pulls_per_arm) : pulls_per_arm_(pulls_per_arm) {}
  std::string_view name() const override { return "explore-then-commit"; }
  sim::Protocol protocol() const override { return sim::Protocol::phased; }
  sim::ReplicationResult replicate(const sim::Cell& cell, std::uint64_t seed,
                                   std::uint64_t replication,
                                   const StopToken& stop) const override {
    ExploreThenCommitState state(cell, pulls_per_arm_);
    return sim::run_phased(cell, state, seed, replication, stop);
  }
  std::string schedule() const override {
    return std::to_string(pulls_per_arm_) + " pulls of each arm, once";
  }

 private:
  std::uint64_t pulls_per_arm_;
};

}  // namespace

namespace entries {
extern const AlgorithmEntry explore_then_commit{
    "explore-then-commit", &etc_options, [](const io::CellValues& values, const sim::CellContext&) {
      return std::shared_ptr<const sim::Algorithm>(
          std::make_shared<ExploreThenCommit>(values.whole("algorithm.pulls_per_arm")));
    },
    {}};
}  // namespace entries

}  // namespace pfmab::algorithms
