#include "pfmab/sim/phased.hpp"

#include <algorithm>
#include <vector>

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include "pfmab/rng/streams.hpp"
#include "pfmab/sim/barrier.hpp"
#include "pfmab/sim/participants.hpp"
#include "pfmab/util/checked.hpp"

namespace pfmab::sim {
namespace {

// A phased replication as a chain of tasks. A phase is: the server plans it
// (who takes part, every run of pulls); each client explores and waits
// (task); the last to arrive accounts the phase and aggregates; each
// participant updates (task); the last to arrive ends the phase and starts
// the next. No task ever waits for another.
class PhasedRun {
 public:
  PhasedRun(const Cell& cell, PhasedState& state, std::uint64_t seed, std::uint64_t replication,
            const StopToken& stop)
      : cell_(cell),
        state_(state),
        stop_(stop),
        clients_(cell.instance().clients()),
        trajectory_(cell.instance(), cell.measured(), cell.checkpoints(), cell.spec().comm_cost),
        plays_(clients_),
        exploration_(clients_, 0),
        sums_(clients_),
        participates_(clients_, false) {
    for (std::uint64_t m = 0; m < clients_; ++m) {
      streams_.push_back(rng::make_stream({seed, cell.index(), replication, m}));
    }
    // The server's own draws (who takes part) come from the stream of the
    // key one past the last client.
    if (!cell.spec().participation.full(clients_)) {
      server_stream_ = rng::make_stream({seed, cell.index(), replication, clients_});
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
  // Every action of phase p but an observed waiting is fixed when it starts
  // (who takes part, every run, the waiting arm from phase p-1's state).
  void start_phase() {
    if (state_.finished() || trajectory_.finished()) {
      play_out();
      return;
    }
    stop_.throw_if_requested();  // phases can number up to T
    ++phase_;
    choose_participants();
    state_.begin_phase(phase_, participants_);
    plan_exploration();
    remaining_ = trajectory_.horizon() - trajectory_.now();
    completes_ = longest_ <= remaining_;
    if (!state_.waiting_observes()) {
      for (std::size_t m = 0; m < clients_; ++m) {
        plays_[m].waiting.clear();
        if (longest_ > exploration_[m]) {
          plays_[m].waiting.push_back({state_.exploit_arm(m), longest_ - exploration_[m]});
        }
      }
      // A phase the horizon cuts never reaches the server, so nothing it
      // would draw is ever read: its rewards are not drawn.
      if (!completes_) {
        trajectory_.advance(plays_, longest_, 0);
        return;
      }
    }
    barrier_.arm(clients_);
    for (std::size_t m = 0; m < clients_; ++m) {
      tasks_.run([this, m] { explore(m); });
    }
  }

  void choose_participants() {
    draw_participants(cell_.spec().participation, server_stream_, participates_);
    participants_.clear();
    for (std::uint32_t m = 0; m < clients_; ++m) {
      if (participates_[m]) participants_.push_back(m);
    }
  }

  void plan_exploration() {
    longest_ = 0;
    for (std::size_t m = 0; m < clients_; ++m) {
      auto& runs = plays_[m].runs;
      runs.clear();
      exploration_[m] = 0;
      if (!participates_[m]) continue;
      state_.plan(m, runs);
      for (const auto& run : runs) exploration_[m] = saturating_add(exploration_[m], run.slots());
      longest_ = std::max(longest_, exploration_[m]);  // L_max
    }
  }

  // Client m's runs, then (if the algorithm's waiting reads its rewards) its
  // waiting.
  void explore(std::size_t m) {
    if (completes_ || exploration_[m] < remaining_) {
      draw_phase(m);
    } else {
      // The horizon cuts this phase (only an observed waiting draws such a
      // phase) before client m's waiting begins: nothing m would draw is
      // ever observed, and its plan may be 2^64 pulls long.
      plays_[m].waiting.clear();
    }
    if (!barrier_.arrive()) return;
    server_step();
  }

  void draw_phase(std::size_t m) {
    const auto fidelity = cell_.spec().fidelity;
    for (const auto& run : plays_[m].runs) {
      if (run.slots() == 0) continue;
      // client m's own buffer, reused: a phase is up to K runs per client
      std::vector<double>& sums = sums_[m];
      sums.assign(run.arms.size(), 0.0);
      draw_reward_sums(fidelity, cell_.instance(), m, streams_[m], run, sums, stop_);
      for (std::size_t i = 0; i < run.arms.size(); ++i) {
        state_.record(m, run.arms[i], run.pulls(i), sums[i]);
      }
    }
    if (state_.waiting_observes()) {
      std::uint64_t waiting = longest_ - exploration_[m];
      // Per pull, the waiting past the horizon would be drawn slot by slot
      // and never observed: it is left out (the draws before the horizon are
      // the same). The aggregated waiting costs the same at any length, and
      // its draws depend on the length: it is kept whole, for the same bits.
      if (!completes_ && fidelity == Fidelity::per_pull) {
        waiting = std::min(waiting, remaining_ - exploration_[m]);
      }
      plays_[m].waiting.clear();
      state_.wait_observing(m, fidelity, streams_[m], waiting, plays_[m].waiting, stop_);
    }
  }

  // Exchange 1 and the phase's accounts: 2 exchanges per participant,
  // charged at its last slot.
  void server_step() {
    trajectory_.advance(plays_, longest_, completes_ ? kExchangesPerPhase * participants_.size() : 0);
    if (!completes_) return;  // the horizon cut the phase: it never reaches the server
    for (const auto m : participants_) exploration_pulls_ += exploration_[m];
    state_.aggregate(participants_);
    barrier_.arm(participants_.size());
    for (const auto m : participants_) {
      tasks_.run([this, m] { decide(m); });
    }
  }

  // Each participant's update, then exchange 2 by the last to arrive.
  void decide(std::size_t m) {
    state_.update(m);
    if (!barrier_.arrive()) return;
    state_.end_phase();
    if (state_.finished()) fixation_slot_ = static_cast<std::int64_t>(trajectory_.now());
    start_phase();
  }

  // Once finished, every client plays its exploitation arm to the horizon.
  void play_out() {
    if (trajectory_.finished()) return;
    const std::uint64_t left = trajectory_.horizon() - trajectory_.now();
    for (std::size_t m = 0; m < clients_; ++m) {
      plays_[m].runs.clear();
      plays_[m].waiting.assign(1, Segment{state_.exploit_arm(m), left});
    }
    trajectory_.advance(plays_, left, 0);
  }

  ReplicationResult result() {
    ReplicationResult r;
    r.series = trajectory_.take_series();
    r.phases = phase_;
    r.exploration_pulls = exploration_pulls_;
    r.fixation_slot = fixation_slot_;
    for (std::size_t m = 0; m < clients_; ++m) {
      const auto arm = state_.fixed_arm(m);
      r.fixed_arm.push_back(arm ? static_cast<std::int32_t>(*arm) : -1);
      r.fixed_optimal.push_back(arm && cell_.measured().gap(m, *arm) == 0.0);
    }
    return r;
  }

  // The clients' reports, then the updates' outcome: two exchanges per
  // participant per phase (for PF-UCB, statistics then active sets, Sec. 4).
  static constexpr std::uint64_t kExchangesPerPhase = 2;

  const Cell& cell_;
  PhasedState& state_;
  StopToken stop_;
  std::size_t clients_;
  std::vector<pcg32> streams_;
  pcg32 server_stream_;
  Trajectory trajectory_;
  LastArrivalBarrier barrier_;
  tbb::task_group tasks_;
  // this phase's plan
  std::vector<ClientPlay> plays_;
  std::vector<std::uint64_t> exploration_;  // L_m
  std::vector<std::vector<double>> sums_;   // per client, draw_phase()'s reward sums
  std::uint64_t longest_ = 0;               // L_max
  std::uint64_t remaining_ = 0;             // slots left when the phase starts
  bool completes_ = true;
  std::vector<std::uint32_t> participants_;
  std::vector<bool> participates_;
  std::uint64_t phase_ = 0;
  std::uint64_t exploration_pulls_ = 0;
  std::int64_t fixation_slot_ = -1;
};

}  // namespace

ReplicationResult run_phased(const Cell& cell, PhasedState& state, std::uint64_t seed,
                             std::uint64_t replication, const StopToken& stop) {
  return PhasedRun(cell, state, seed, replication, stop).run();
}

}  // namespace pfmab::sim
