#include "pfmab/sim/replication.hpp"

#include <algorithm>
#include <span>

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <pcg_random.hpp>

#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/rng/streams.hpp"
#include "pfmab/sim/barrier.hpp"
#include "pfmab/sim/exploration.hpp"

namespace pfmab::sim {

bool ReplicationResult::identified() const {
  return std::all_of(fixed_optimal.begin(), fixed_optimal.end(), [](auto ok) { return ok != 0; });
}

void ReplicationResult::add_to(Digest& digest) const {
  digest.add<double>(series.regret);
  digest.add<double>(series.local_reward);
  digest.add<double>(series.global_reward);
  digest.add<double>(series.mixed_reward);
  digest.add<std::uint64_t>(series.comm_count);
  digest.add(phases);
  digest.add(exploration_pulls);
  digest.add<std::int32_t>(fixed_arm);
  digest.add<std::uint8_t>(fixed_optimal);
  digest.add(fixation_slot);
}

namespace {

// PF-UCB (Algorithms 1 and 2) as a chain of tasks. A phase is: the server
// plans it; each client explores (task); the last to arrive aggregates the
// means; each client updates and eliminates (task); the last to arrive unites
// the active sets and starts the next phase. No task ever waits for another.
class Replication {
 public:
  Replication(const Cell& cell, std::uint64_t seed, std::uint64_t replication)
      : cell_(cell),
        clients_(cell.instance().clients(), algorithms::PfUcbClient(cell.instance().arms())),
        server_(cell.instance().arms()),
        trajectory_(cell.instance(), cell.measured(), cell.checkpoints(), cell.spec().comm_cost),
        barrier_(clients_.size()),
        plays_(clients_.size()),
        exploit_(clients_.size()) {
    streams_.reserve(clients_.size());
    for (std::uint64_t m = 0; m < clients_.size(); ++m) {
      streams_.push_back(rng::make_stream({seed, cell.index(), replication, m}));
    }
  }

  ReplicationResult run() {
    // Isolation keeps this thread, while it waits, to this replication's own
    // tasks rather than nesting another replication inside this one.
    tbb::this_task_arena::isolate([this] {
      start_phase();
      tasks_.wait();
    });
    return result();
  }

 private:
  // Every action of phase p is fixed when it starts (A(p), A_m(p), lengths,
  // the waiting arm from phase p-1's estimates), so it is accounted here.
  void start_phase() {
    if (server_.active().empty() || trajectory_.finished()) {
      play_out();
      return;
    }
    ++phase_;
    const auto& rule = cell_.rule();
    const std::uint64_t global_rounds = rule.global_rounds(phase_);
    const std::uint64_t local_rounds = rule.local_rounds(phase_);
    std::uint64_t longest = 0;  // L_max
    for (std::size_t m = 0; m < clients_.size(); ++m) {
      plays_[m][0] = {server_.active(), global_rounds};
      plays_[m][1] = {clients_[m].active(), local_rounds};
      longest = std::max(longest, plays_[m][0].slots() + plays_[m][1].slots());
    }
    for (std::size_t m = 0; m < clients_.size(); ++m) {
      exploit_[m] = clients_[m].exploit_arm();
      plays_[m][2] = {std::span(&exploit_[m], 1),
                      longest - plays_[m][0].slots() - plays_[m][1].slots()};
    }
    const bool completes = longest <= trajectory_.horizon() - trajectory_.now();
    trajectory_.advance(plays_, longest, kRoundsPerPhase);
    // A phase the horizon cuts never reaches the server, so nothing it would
    // draw is ever read: its rewards are not drawn.
    if (!completes) return;
    for (const auto& play : plays_) exploration_pulls_ += play[0].slots() + play[1].slots();
    for (std::size_t m = 0; m < clients_.size(); ++m) {
      tasks_.run([this, m] { explore(m); });
    }
  }

  // Steps 1-3 at client m: global then local exploration; send the means.
  void explore(std::size_t m) {
    auto& client = clients_[m];
    std::vector<double> sums(cell_.instance().arms());
    for (const auto& run : {plays_[m][0], plays_[m][1]}) {
      if (run.rounds == 0) continue;
      draw_reward_sums(cell_.spec().fidelity, cell_.instance(), m, streams_[m], run, sums);
      for (std::size_t i = 0; i < run.arms.size(); ++i)
        client.record(run.arms[i], run.rounds, sums[i]);
    }
    if (!barrier_.arrive()) return;
    server_.aggregate(clients_);  // step 5
    for (std::size_t n = 0; n < clients_.size(); ++n) {
      tasks_.run([this, n] { decide(n); });
    }
  }

  // Step 6 at client m: mixed estimates, elimination, fixing; send A_m(p+1).
  void decide(std::size_t m) {
    clients_[m].update(server_.global_means(), cell_.rule().alpha(),
                       cell_.rule().confidence_radius(phase_));
    if (!barrier_.arrive()) return;
    server_.unite(clients_);  // step 7
    if (server_.active().empty()) fixation_slot_ = static_cast<std::int64_t>(trajectory_.now());
    start_phase();
  }

  // After A is empty every client plays O_m to the horizon.
  void play_out() {
    if (trajectory_.finished()) return;
    const std::uint64_t left = trajectory_.horizon() - trajectory_.now();
    for (std::size_t m = 0; m < clients_.size(); ++m) {
      exploit_[m] = *clients_[m].fixed_arm();
      plays_[m] = {RoundRobin{std::span(&exploit_[m], 1), left}, RoundRobin{}, RoundRobin{}};
    }
    trajectory_.advance(plays_, left, 0);
  }

  ReplicationResult result() {
    ReplicationResult r;
    r.series = trajectory_.take_series();
    r.phases = phase_;
    r.exploration_pulls = exploration_pulls_;
    r.fixation_slot = fixation_slot_;
    for (std::size_t m = 0; m < clients_.size(); ++m) {
      const auto arm = clients_[m].fixed_arm();
      r.fixed_arm.push_back(arm ? static_cast<std::int32_t>(*arm) : -1);
      r.fixed_optimal.push_back(arm && cell_.measured().gap(m, *arm) == 0.0);
    }
    return r;
  }

  // Statistics, then active sets: two exchanges per client per phase (Sec. 4).
  static constexpr std::uint64_t kRoundsPerPhase = 2;

  const Cell& cell_;
  std::vector<algorithms::PfUcbClient> clients_;
  std::vector<pcg32> streams_;
  algorithms::PfUcbServer server_;
  Trajectory trajectory_;
  LastArrivalBarrier barrier_;
  tbb::task_group tasks_;
  std::vector<ClientPlay> plays_;       // this phase's plan, per client
  std::vector<std::uint32_t> exploit_;  // storage for each client's waiting arm
  std::uint64_t phase_ = 0;
  std::uint64_t exploration_pulls_ = 0;
  std::int64_t fixation_slot_ = -1;
};

}  // namespace

ReplicationResult run_replication(const Cell& cell, std::uint64_t seed, std::uint64_t replication) {
  return Replication(cell, seed, replication).run();
}

}  // namespace pfmab::sim
