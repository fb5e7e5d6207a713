#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "pfmab/model/instance.hpp"
#include "pfmab/model/mixed_model.hpp"

namespace pfmab::sim {

// In what order a run pulls its arms.
enum class Order {
  round_robin,  // arms[0], arms[1], ..., arms[n-1], arms[0], ... (Algorithm 1)
  blocked,      // every pull of arms[0], then of arms[1], ... (the authors' code)
};

// Exploration pulls of one client in one phase: arms[i] is pulled pulls(i)
// times, `rounds` each or counts[i] (the enhanced algorithm's lengths per
// arm). Round robin with unequal counts cycles over the arms still owed
// pulls, in index order.
struct Run {
  std::span<const std::uint32_t> arms;
  std::uint64_t rounds = 0;
  std::span<const std::uint64_t> counts;  // empty: `rounds` each
  Order order = Order::round_robin;

  std::uint64_t pulls(std::size_t i) const { return counts.empty() ? rounds : counts[i]; }
  std::uint64_t slots() const;
  // per_arm[arms[i]] += the pulls of arms[i] among the first `elapsed` slots
  void add_pulls(std::uint64_t elapsed, std::uint64_t* per_arm) const;
};

// `slots` consecutive pulls of one arm.
struct Segment {
  std::uint32_t arm = 0;
  std::uint64_t slots = 0;
};

// What one client plays in one phase, in order: its exploration runs (for
// PF-UCB, global exploration of A(p), then local exploration of A_m(p)),
// then its exploitation arm(s) while it waits for the slowest client (a
// client absent from the phase only waits).
struct ClientPlay {
  std::vector<Run> runs;
  std::vector<Segment> waiting;

  std::uint64_t slots() const;
};

// The checkpoint series of one replication.
struct Series {
  std::vector<double> regret;             // pseudo-regret incl. communication loss
  std::vector<double> local_reward;       // sum over slots and clients of mu_{pi,m}
  std::vector<double> global_reward;      // ... of mu_pi
  std::vector<double> mixed_reward;       // ... of mu'_{pi,m}
  std::vector<std::uint64_t> comm_count;  // client-server exchanges so far
};

// Turns a replication's actions into its series on the checkpoint grid.
// Pseudo-regret is built from exact integer pull counts per (client, arm), so
// a value at a checkpoint never depends on how the slots before it were
// grouped into stretches.
class Trajectory {
 public:
  // `checkpoints` is increasing and ends with the horizon.
  Trajectory(const model::Instance& instance, const model::MixedModel& measured,
             std::span<const std::uint64_t> checkpoints, double comm_cost);

  std::uint64_t now() const { return now_; }
  std::uint64_t horizon() const { return checkpoints_.back(); }
  bool finished() const { return now_ >= horizon(); }

  // Accounts the next `length` slots, in which client m plays plays[m]; if
  // they end within the horizon, `exchanges` client-server exchanges are
  // charged at their last slot (Eqn. (5): C per client per round). A stretch
  // that runs past the horizon is cut there, without its communication.
  void advance(std::span<const ClientPlay> plays, std::uint64_t length, std::uint64_t exchanges);
  // Accounts the next slot, in which client m plays arms[m] (algorithms that
  // decide slot by slot).
  void advance_slot(std::span<const std::uint32_t> arms);
  // Accounts the whole horizon at once, without communication, from each
  // client's pull counts at every checkpoint: counts[(c * M + m) * K + k] is
  // how often client m pulled arm k in the first checkpoints[c] slots. For
  // algorithms whose clients play apart and report when done; the series
  // are bit-identical to advancing slot by slot. Only on a fresh trajectory.
  void account_counts(std::span<const std::uint64_t> counts);

  const Series& series() const { return series_; }
  Series take_series() { return std::move(series_); }

 private:
  // Where advance() is in one client's play: its items (runs, then waiting
  // segments) before `item` are wholly passed, `done` slots.
  struct Cursor {
    std::size_t item = 0;
    std::uint64_t done = 0;
    // Moves past the items wholly within the first `elapsed` slots of `play`
    // (elapsed not below the last call's), adding their pulls to `passed`
    // (that client's row).
    void pass(const ClientPlay& play, std::uint64_t elapsed, std::uint64_t* passed);
    // Adds to `counts` the pulls of the part of the next item within them.
    void add_part(const ClientPlay& play, std::uint64_t elapsed, std::uint64_t* counts) const;
  };
  void record_due_checkpoints();  // those at now_, after a slot
  void record(const std::vector<std::uint64_t>& counts, std::uint64_t comm_count);

  std::span<const std::uint64_t> checkpoints_;
  double comm_cost_;
  std::size_t clients_;
  std::size_t arms_;
  // per (client, arm), row-major: Delta'_{k,m}, mu_{k,m}, mu_k, mu'_{k,m}
  std::vector<double> gap_, local_, global_, mixed_;
  // per (client, arm) up to now_ (within advance(), and the runs it has
  // wholly passed)
  std::vector<std::uint64_t> pulls_;
  std::vector<std::uint64_t> scratch_;
  std::vector<Cursor> cursors_;  // advance()'s, per client
  std::uint64_t now_ = 0;
  std::uint64_t comm_count_ = 0;
  std::size_t next_checkpoint_ = 0;
  Series series_;
};

}  // namespace pfmab::sim
