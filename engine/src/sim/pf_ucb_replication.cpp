#include "pfmab/sim/pf_ucb_replication.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <pcg_random.hpp>

#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/rng/samplers.hpp"
#include "pfmab/rng/streams.hpp"
#include "pfmab/sim/barrier.hpp"
#include "pfmab/sim/exploration.hpp"
#include "pfmab/sim/participants.hpp"
#include "pfmab/sim/waiting.hpp"
#include "pfmab/util/checked.hpp"

namespace pfmab::sim {
namespace {

using algorithms::PfUcbClient;

// PF-UCB (Algorithms 1 and 2) as a chain of tasks. A phase is: the server
// plans it (who takes part, every exploration length); each client explores
// and waits (task); the last to arrive accounts the phase and aggregates the
// means; each participant updates and eliminates (task); the last to arrive
// unites the active sets and starts the next phase. No task ever waits for
// another.
class PfUcbReplication {
 public:
  PfUcbReplication(const Cell& cell, std::uint64_t seed, std::uint64_t replication,
                   const StopToken& stop)
      : cell_(cell),
        stop_(stop),
        preset_(cell.rule().params().preset),
        alpha_(cell.algorithm_alpha()),
        full_participation_(cell.spec().participation.full(cell.instance().clients())),
        clients_(cell.instance().clients(), PfUcbClient(cell.instance().arms())),
        server_(cell.instance().arms(), cell.instance().clients()),
        trajectory_(cell.instance(), cell.measured(), cell.checkpoints(), cell.spec().comm_cost),
        plays_(clients_.size()),
        global_counts_(clients_.size()),
        local_counts_(clients_.size()),
        exploration_(clients_.size(), 0),
        participates_(clients_.size(), false),
        cumulative_(clients_.size(), 0.0) {
    const std::uint64_t m_count = clients_.size();
    for (std::uint64_t m = 0; m < m_count; ++m) {
      streams_.push_back(rng::make_stream({seed, cell.index(), replication, m}));
    }
    // The server's own draws (who takes part) come from the stream of the
    // key one past the last client.
    if (!full_participation_) {
      server_stream_ = rng::make_stream({seed, cell.index(), replication, m_count});
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
  const algorithms::PfUcbRule& rule() const { return cell_.rule(); }
  bool enhanced() const { return rule().params().enhanced; }
  algorithms::Aggregation aggregation() const { return cell_.spec().participation.aggregation; }

  // (1/M) sum_n 1/F_n in client order: infinite while a client has never
  // taken part.
  static double mean_inverse(std::span<const double> cumulative) {
    double sum = 0.0;
    for (const double f : cumulative) sum += 1.0 / f;
    return sum / static_cast<double>(cumulative.size());
  }

  // Every action of phase p but the authors' waiting is fixed when it starts
  // (who takes part, A(p), A_m(p), lengths, Algorithm 1's waiting arm from
  // phase p-1's estimates).
  void start_phase() {
    if (server_.active().empty() || trajectory_.finished()) {
      play_out();
      return;
    }
    stop_.throw_if_requested();  // phases can number up to T
    ++phase_;
    choose_participants();
    plan_exploration();
    remaining_ = trajectory_.horizon() - trajectory_.now();
    completes_ = longest_ <= remaining_;
    if (!algorithms::exploitation_feeds_means(preset_)) {
      for (std::size_t m = 0; m < clients_.size(); ++m) {
        plays_[m].waiting.clear();
        if (longest_ > exploration_[m]) {
          plays_[m].waiting.push_back({clients_[m].exploit_arm(), longest_ - exploration_[m]});
        }
      }
      // A phase the horizon cuts never reaches the server, so nothing it
      // would draw is ever read: its rewards are not drawn.
      if (!completes_) {
        trajectory_.advance(plays_, longest_, 0);
        return;
      }
    }
    barrier_.arm(clients_.size());
    for (std::size_t m = 0; m < clients_.size(); ++m) {
      tasks_.run([this, m] { explore(m); });
    }
  }

  void choose_participants() {
    draw_participants(cell_.spec().participation, server_stream_, participates_);
    participants_.clear();
    for (std::uint32_t m = 0; m < clients_.size(); ++m) {
      if (participates_[m]) participants_.push_back(m);
    }
  }

  // A run over `arms`, `rounds(factor)` pulls each: factor 1, or for the
  // enhanced algorithm each arm's length factor (Sec. 6).
  template <class Rounds>
  Run run_over(std::span<const std::uint32_t> arms, std::size_t m,
               std::vector<std::uint64_t>& counts, Rounds rounds) const {
    Run run;
    run.arms = arms;
    run.order = algorithms::pulls_blocked(preset_) ? Order::blocked : Order::round_robin;
    if (!enhanced()) {
      run.rounds = rounds(1.0);
      return run;
    }
    counts.clear();
    for (const auto k : arms) counts.push_back(rounds(server_.length_factor(m, k, alpha_)));
    run.counts = counts;
    return run;
  }

  void plan_exploration() {
    longest_ = 0;
    for (std::size_t m = 0; m < clients_.size(); ++m) {
      auto& play = plays_[m];
      play.global = {};
      play.local = {};
      exploration_[m] = 0;
      if (!participates_[m]) continue;
      cumulative_[m] += rule().schedule().f(phase_);
      play.global = run_over(server_.active(), m, global_counts_[m],
                             [&](double factor) { return rule().global_rounds(phase_, factor); });
      play.local = run_over(clients_[m].active(), m, local_counts_[m],
                            [&](double factor) { return rule().local_rounds(phase_, factor); });
      exploration_[m] = saturating_add(play.global.slots(), play.local.slots());
      longest_ = std::max(longest_, exploration_[m]);  // L_max
    }
  }

  // Steps 1-3 at client m: global then local exploration, the means sent;
  // under the authors' rule also its waiting, which reads every reward.
  void explore(std::size_t m) {
    if (completes_ || exploration_[m] < remaining_) {
      draw_phase(m);
    } else {
      // The horizon cuts this phase (only the authors' rule draws such a
      // phase, for its waiting) before client m's waiting begins: nothing m
      // would draw is ever observed, and its plan may be 2^64 pulls long.
      plays_[m].waiting.clear();
    }
    if (!barrier_.arrive()) return;
    server_step();
  }

  void draw_phase(std::size_t m) {
    auto& client = clients_[m];
    const auto fidelity = cell_.spec().fidelity;
    for (const Run* run : {&plays_[m].global, &plays_[m].local}) {
      if (run->slots() == 0) continue;
      std::vector<double> sums(run->arms.size());
      draw_reward_sums(fidelity, cell_.instance(), m, streams_[m], *run, sums, stop_);
      for (std::size_t i = 0; i < run->arms.size(); ++i) {
        client.record(run->arms[i], run->pulls(i), sums[i]);
      }
    }
    if (algorithms::exploitation_feeds_means(preset_)) {
      std::uint64_t waiting = longest_ - exploration_[m];
      // Per pull, the waiting past the horizon would be drawn slot by slot
      // and never observed: it is left out (the draws before the horizon are
      // the same). The aggregated waiting costs the same at any length, and
      // its draws depend on the length: it is kept whole, for the same bits.
      if (!completes_ && fidelity == Fidelity::per_pull) {
        waiting = std::min(waiting, remaining_ - exploration_[m]);
      }
      plays_[m].waiting.clear();
      wait_exploiting(fidelity, cell_.instance(), m, streams_[m], client, alpha_, waiting,
                      plays_[m].waiting, stop_);
    }
  }

  // Step 5 and the phase's accounts: 2 exchanges per participant (statistics,
  // then active sets), charged at its last slot.
  void server_step() {
    trajectory_.advance(plays_, longest_, completes_ ? kRoundsPerPhase * participants_.size() : 0);
    if (!completes_) return;  // the horizon cut the phase: it never reaches the server
    for (const auto m : participants_) exploration_pulls_ += exploration_[m];
    server_.aggregate(clients_, participants_, preset_, aggregation());
    mean_inverse_cumulative_ = mean_inverse(cumulative_);
    barrier_.arm(participants_.size());
    for (const auto m : participants_) {
      tasks_.run([this, m] { decide(m); });
    }
  }

  // Step 6 at participant m: mixed estimates, elimination, fixing; A_m(p+1)
  // (and, enhanced, its gap estimates) sent.
  void decide(std::size_t m) {
    const double radius = confidence_radius(m);
    clients_[m].update(server_.global_means(), alpha_, radius, preset_);
    if (enhanced()) server_.receive_gaps(m, clients_[m].gap_estimates(radius));
    if (!barrier_.arrive()) return;
    server_.unite(clients_);  // step 7
    if (server_.active().empty()) fixation_slot_ = static_cast<std::int64_t>(trajectory_.now());
    start_phase();
  }

  // B_p (Eqn. (8)) with every client; under partial participation the
  // radius of the estimate the server aggregates (docs/algorithms.md):
  // every client's latest report, or the participants' alone, whose radius
  // counts m's own phases only and ignores which clients were drawn.
  double confidence_radius(std::size_t m) const {
    if (full_participation_) return rule().confidence_radius(phase_);
    if (aggregation() == algorithms::Aggregation::participants) {
      return rule().confidence_radius_at(cumulative_[m]);
    }
    return rule().confidence_radius_latest(cumulative_[m], mean_inverse_cumulative_);
  }

  // After A is empty every client plays O_m (or, under the authors' rule, a
  // client that eliminated every arm its final argmax) to the horizon.
  void play_out() {
    if (trajectory_.finished()) return;
    const std::uint64_t left = trajectory_.horizon() - trajectory_.now();
    for (std::size_t m = 0; m < clients_.size(); ++m) {
      const auto& client = clients_[m];
      const auto arm = algorithms::exploitation_feeds_means(preset_)
                           ? client.exploit_arm_authors(alpha_)
                           : client.exploit_arm();
      plays_[m] = ClientPlay{{}, {}, {Segment{arm, left}}};
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
  StopToken stop_;
  algorithms::Preset preset_;
  double alpha_;  // the algorithm's
  bool full_participation_;
  std::vector<PfUcbClient> clients_;
  std::vector<pcg32> streams_;
  pcg32 server_stream_;
  algorithms::PfUcbServer server_;
  Trajectory trajectory_;
  LastArrivalBarrier barrier_;
  tbb::task_group tasks_;
  // this phase's plan
  std::vector<ClientPlay> plays_;
  std::vector<std::vector<std::uint64_t>> global_counts_, local_counts_;  // enhanced lengths
  std::vector<std::uint64_t> exploration_;                                // L_m
  std::uint64_t longest_ = 0;                                             // L_max
  std::uint64_t remaining_ = 0;  // slots left when the phase starts
  bool completes_ = true;
  std::vector<std::uint32_t> participants_;
  std::vector<bool> participates_;
  std::vector<double> cumulative_;        // F_n: sum of f over the phases client n took part in
  double mean_inverse_cumulative_ = 0.0;  // (1/M) sum_n 1/F_n, this phase
  std::uint64_t phase_ = 0;
  std::uint64_t exploration_pulls_ = 0;
  std::int64_t fixation_slot_ = -1;
};

}  // namespace

ReplicationResult run_pf_ucb(const Cell& cell, std::uint64_t seed, std::uint64_t replication,
                             const StopToken& stop) {
  return PfUcbReplication(cell, seed, replication, stop).run();
}

}  // namespace pfmab::sim
