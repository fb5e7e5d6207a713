#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <pcg_random.hpp>

#include "pfmab/families/registry.hpp"
#include "pfmab/rng/streams.hpp"
#include "pfmab/sim/cell.hpp"
#include "pfmab/sim/replication.hpp"
#include "pfmab/sim/trajectory.hpp"
#include "pfmab/util/stop_token.hpp"

namespace pfmab::sim {

// The engine of the algorithms that choose every pull from every reward so
// far (Protocol::slot_by_slot; docs/algorithms.md, "The algorithm
// interface"). They draw every reward, one per client and slot, client m's
// from the stream of key (seed, cell, replication, m), in either mode.
// Templates, so that the algorithm's per-slot choice inlines into the loop
// that draws.
//
// What they report besides the series: no communication, phases = 0,
// exploration_pulls = T M (every reward drawn), fixation_slot = -1. They
// never fix an arm, so fixed_arm[m] is the arm client m pulled most over the
// horizon (lowest index on ties), and fixed_optimal[m] says whether that arm
// is mixed-optimal for the measured alpha.
ReplicationResult slot_by_slot_result(const Cell& cell, Series series,
                                      std::span<const std::uint64_t> final_counts);

// A client of play_apart, or the clients of play_together, that draw random
// numbers of their own besides the rewards (Thompson sampling's posterior
// draws) are made with one more argument, a stream key: play_apart's client
// m gets the key of its reward stream (seed, cell, replication, m), from
// which it keys its own on a client slot no other stream uses (documented
// where it is made); play_together's clients get the server's key (seed,
// cell, replication, M), which run_phased's server draws from and no
// slot-by-slot stream does. The others are made without it, and the draws
// of every stream the engine makes are the same either way.
template <class Client>
concept KeyedClient =
    std::constructible_from<Client, const Cell&, std::size_t, const rng::StreamKey&>;
template <class Clients>
concept KeyedClients = std::constructible_from<Clients, const Cell&, const rng::StreamKey&>;

namespace detail {

// Client m's rewards, one sampler per arm.
template <class Rewards>
std::vector<Rewards> client_rewards(const model::Instance& instance, std::size_t client) {
  std::vector<Rewards> rewards;
  for (const double mu : instance.local_means(client)) rewards.emplace_back(mu, instance.rewards());
  return rewards;
}

// Client m of play_apart for the whole horizon. Writes its pull counts at
// every checkpoint into `counts`, laid out as Trajectory::account_counts
// reads them.
template <class Client, class Rewards>
void play_one_apart(const Cell& cell, std::size_t m, const rng::StreamKey& key,
                    std::span<std::uint64_t> counts, const StopToken& stop) {
  const std::size_t clients = cell.instance().clients(), arms = cell.instance().arms();
  const auto& checkpoints = cell.checkpoints();
  const auto rewards = client_rewards<Rewards>(cell.instance(), m);
  pcg32 stream = rng::make_stream(key);
  Client client = [&] {
    if constexpr (KeyedClient<Client>)
      return Client(cell, m, key);
    else
      return Client(cell, m);
  }();
  std::vector<std::uint64_t> pulls(arms, 0);
  std::size_t next = 0;  // next checkpoint
  for (std::uint64_t t = 1; t <= cell.horizon(); ++t) {
    stop.poll(t);
    const std::uint32_t arm = client.choose(t);
    client.observe(arm, rewards[arm].draw(stream));
    ++pulls[arm];
    if (t == checkpoints[next]) {
      std::copy(pulls.begin(), pulls.end(), counts.begin() + (next * clients + m) * arms);
      ++next;
    }
  }
}

}  // namespace detail

// Clients that never interact (no server, no communication). `Client` is
// one client's state:
//   Client(const Cell& cell, std::size_t m)        or (cell, m, key): KeyedClient
//   std::uint32_t choose(std::uint64_t t)         the arm of slot t = 1, 2, ...
//   void observe(std::uint32_t arm, double reward)
// Each client is one oneTBB task for the whole horizon; each writes only its
// own counts, so neither the order the tasks run in nor the thread count
// changes the result.
template <class Client>
ReplicationResult play_apart(const Cell& cell, std::uint64_t seed, std::uint64_t replication,
                             const StopToken& stop) {
  const auto& instance = cell.instance();
  const std::size_t block = instance.clients() * instance.arms();
  std::vector<std::uint64_t> counts(cell.checkpoints().size() * block, 0);
  // Isolation keeps this thread, while it waits, to this replication's own
  // tasks rather than nesting another replication inside this one.
  tbb::this_task_arena::isolate([&] {
    tbb::task_group tasks;
    for (std::size_t m = 0; m < instance.clients(); ++m) {
      tasks.run([&, m] {
        families::with_sampler(instance.rewards(), [&]<class Rewards>(std::type_identity<Rewards>) {
          detail::play_one_apart<Client, Rewards>(cell, m, {seed, cell.index(), replication, m},
                                                  counts, stop);
        });
      });
    }
    tasks.wait();
  });
  Trajectory trajectory(instance, cell.measured(), cell.checkpoints(), cell.spec().comm_cost);
  trajectory.account_counts(counts);
  return slot_by_slot_result(cell, trajectory.take_series(),
                             std::span(counts).subspan(counts.size() - block));
}

// Clients that share every statistic every slot, through a server whose
// communication costs nothing. `Clients` is every client's state:
//   explicit Clients(const Cell& cell)                    or (cell, key): KeyedClients
//   std::uint32_t choose(std::size_t m, std::uint64_t t)  from the rewards before slot t
//   void observe(std::size_t m, std::uint32_t arm, double reward)
//   void end_slot()                                       every client has observed
// Sequential: one task.
template <class Clients>
ReplicationResult play_together(const Cell& cell, std::uint64_t seed, std::uint64_t replication,
                                const StopToken& stop) {
  return families::with_sampler(
      cell.instance().rewards(), [&]<class Rewards>(std::type_identity<Rewards>) {
        const auto& instance = cell.instance();
        const std::size_t clients = instance.clients(), arms = instance.arms();
        std::vector<pcg32> streams;
        std::vector<Rewards> rewards;  // per (client, arm), row-major
        for (std::size_t m = 0; m < clients; ++m) {
          streams.push_back(rng::make_stream({seed, cell.index(), replication, m}));
          const auto own = detail::client_rewards<Rewards>(instance, m);
          rewards.insert(rewards.end(), own.begin(), own.end());
        }
        Clients state = [&] {
          if constexpr (KeyedClients<Clients>) {
            return Clients(cell, rng::StreamKey{seed, cell.index(), replication, clients});
          } else {
            return Clients(cell);
          }
        }();
        Trajectory trajectory(instance, cell.measured(), cell.checkpoints(), cell.spec().comm_cost);
        std::vector<std::uint32_t> played(clients);        // this slot's arm per client
        std::vector<std::uint64_t> pulls(clients * arms);  // per (client, arm)
        for (std::uint64_t t = 1; t <= cell.horizon(); ++t) {
          stop.poll(t);
          for (std::size_t m = 0; m < clients; ++m) played[m] = state.choose(m, t);
          for (std::size_t m = 0; m < clients; ++m) {
            const std::size_t i = m * arms + played[m];
            state.observe(m, played[m], rewards[i].draw(streams[m]));
            ++pulls[i];
          }
          state.end_slot();
          trajectory.advance_slot(played);
        }
        return slot_by_slot_result(cell, trajectory.take_series(), pulls);
      });
}

}  // namespace pfmab::sim
