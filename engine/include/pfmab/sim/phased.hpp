#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <pcg_random.hpp>

#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/exploration.hpp"
#include "pfmab/sim/replication.hpp"
#include "pfmab/sim/trajectory.hpp"
#include "pfmab/util/stop_token.hpp"

namespace pfmab::sim {

// One replication of a phased algorithm (Protocol::phased): its clients' and
// its server's state, as run_phased drives them (docs/algorithms.md, "The
// algorithm interface"). Each phase p = 1, 2, ... is:
//
//   server   begin_phase(p, participants), then plan(m, runs) for each
//            participant m in client order
//   client m (its own task) the engine draws m's runs and calls record() per
//            arm of each run, then m waits for the slowest participant on
//            exploit_arm(m) (or, if waiting_observes(), in wait_observing())
//   server   (the last participant to arrive) aggregate(participants):
//            exchange 1, the clients' reports in, the server's broadcast out
//   client m (each participant's task) update(m) on the broadcast
//   server   (the last to arrive) end_phase(): exchange 2
//
// until finished(), after which every client plays exploit_arm(m) to the
// horizon. The engine keeps the tasks, the barriers, the streams, who takes
// part, the horizon, the two exchanges per participant and phase that the
// regret is charged C for, and the trajectory. Client hooks touch only
// client m's state and what the server last broadcast; server hooks run
// alone.
class PhasedState {
 public:
  virtual ~PhasedState() = default;

  // Server: no client explores any more.
  virtual bool finished() const = 0;
  // Server: phase `phase` begins with these clients (every client under
  // full participation).
  virtual void begin_phase(std::uint64_t /*phase*/,
                           std::span<const std::uint32_t> /*participants*/) {}
  // Server: participant m's runs of pulls this phase, appended to `runs` in
  // the order it plays them. Their spans may point into this state: they
  // are read until aggregate() returns.
  virtual void plan(std::size_t m, std::vector<Run>& runs) = 0;
  // Client m: `pulls` rewards of `arm` summing to `sum`.
  virtual void record(std::size_t m, std::uint32_t arm, std::uint64_t pulls, double sum) = 0;
  // Client m: the arm it plays while not exploring (waiting for the slowest
  // participant, sitting a phase out, after finished()).
  virtual std::uint32_t exploit_arm(std::size_t m) const = 0;
  // Server: the participants' reports aggregated and broadcast.
  virtual void aggregate(std::span<const std::uint32_t> participants) = 0;
  // Client m, a participant: its update on the broadcast.
  virtual void update(std::size_t m) = 0;
  // Server: after every participant's update.
  virtual void end_phase() = 0;
  // Client m's committed arm O_m, if it has one.
  virtual std::optional<std::uint32_t> fixed_arm(std::size_t m) const = 0;

  // Whether a participant's waiting reads its rewards (PF-UCB's authors'
  // rule): then the engine calls wait_observing() for `slots` slots instead
  // of playing exploit_arm(m), and appends what it played to `played`.
  virtual bool waiting_observes() const { return false; }
  virtual void wait_observing(std::size_t /*m*/, Fidelity /*fidelity*/, pcg32& /*stream*/,
                              std::uint64_t /*slots*/, std::vector<Segment>& /*played*/,
                              const StopToken& /*stop*/) {}
};

// Runs one replication of `state`'s algorithm on `cell` (Protocol::phased):
// one oneTBB task per client and phase step, the server steps run by the
// last client to arrive, no task ever waiting for another. Client m draws
// from the stream of key (seed, cell, replication, m); who takes part, from
// key (seed, cell, replication, M). Blocks the calling thread until done
// (it takes part in the work); throws Interrupted once `stop` is requested.
ReplicationResult run_phased(const Cell& cell, PhasedState& state, std::uint64_t seed,
                             std::uint64_t replication, const StopToken& stop);

}  // namespace pfmab::sim
