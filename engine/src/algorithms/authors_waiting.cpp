#include "pfmab/algorithms/authors_waiting.hpp"

#include <optional>
#include <type_traits>

#include "pfmab/families/registry.hpp"

namespace pfmab::algorithms {
namespace {

// The arm played now and the best of the others, with their values.
struct Contest {
  std::uint32_t played = 0;
  std::optional<std::uint32_t> rival;
  double rival_value = 0.0;
};

Contest contest(const PfUcbClient& state, std::size_t arms, double alpha) {
  Contest c;
  c.played = state.exploit_arm_authors(alpha);
  if (state.fixed_arm()) return c;
  for (std::uint32_t k = 0; k < arms; ++k) {
    if (k == c.played || state.pulls(k) == 0) continue;
    const double value = state.exploit_value(k, alpha);
    if (!c.rival || value > c.rival_value) {
      c.rival = k;
      c.rival_value = value;
    }
  }
  return c;
}

// Whether `played`, at `value`, is still the argmax against the rival (ties
// go to the lower index, as numpy's argmax).
bool still_leads(const Contest& c, double value) {
  return !c.rival || value > c.rival_value || (value == c.rival_value && c.played < *c.rival);
}

void extend(std::vector<sim::Segment>& played, std::uint32_t arm, std::uint64_t slots) {
  if (!played.empty() && played.back().arm == arm) {
    played.back().slots += slots;
  } else {
    played.push_back({arm, slots});
  }
}

// The rewards of client m's arm, as Rewards draws them.
template <class Rewards>
Rewards arm_rewards(const model::Instance& instance, std::size_t client, std::uint32_t arm) {
  return Rewards(instance.local_mean(client, arm), instance.rewards());
}

template <class Rewards>
void wait_per_pull(const model::Instance& instance, std::size_t client, pcg32& stream,
                   PfUcbClient& state, double alpha, std::uint64_t slots,
                   std::vector<sim::Segment>& played, const StopToken& stop) {
  auto c = contest(state, instance.arms(), alpha);
  auto reward = arm_rewards<Rewards>(instance, client, c.played);
  for (; slots > 0; --slots) {
    stop.poll(slots);
    state.record(c.played, 1, reward.draw(stream));
    extend(played, c.played, 1);
    if (!still_leads(c, state.exploit_value(c.played, alpha))) {
      c = contest(state, instance.arms(), alpha);
      reward = arm_rewards<Rewards>(instance, client, c.played);
    }
  }
}

template <class Rewards>
void wait_aggregated(const model::Instance& instance, std::size_t client, pcg32& stream,
                     PfUcbClient& state, double alpha, std::uint64_t slots,
                     std::vector<sim::Segment>& played, const StopToken& stop) {
  for (std::uint64_t step = 1; slots > 0; ++step) {
    stop.poll(step);
    const auto c = contest(state, instance.arms(), alpha);
    const std::uint32_t b = c.played;
    const auto reward = arm_rewards<Rewards>(instance, client, b);
    // Nothing can take over: a fixed arm, no rival, or values that do not
    // move (alpha = 0).
    if (!c.rival || alpha == 0.0) {
      state.record(b, slots, reward.sum_of(slots, stream));
      extend(played, b, slots);
      return;
    }
    // b loses once alpha s_b / T_b + (1 - alpha) mu_bar_b < the rival's value,
    // i.e. once the walk Y = s_b - theta T_b goes below 0.
    const double theta = (c.rival_value - (1.0 - alpha) * state.global_mean(b)) / alpha;
    const double y = state.sum(b) - theta * static_cast<double>(state.pulls(b));
    const auto stretch = reward.until_below_zero(stream, y, theta, slots);
    state.record(b, stretch.pulls, stretch.sum);
    extend(played, b, stretch.pulls);
    slots -= stretch.pulls;
  }
}

}  // namespace

void wait_exploiting(sim::Fidelity fidelity, const model::Instance& instance, std::size_t client,
                     pcg32& stream, PfUcbClient& state, double alpha, std::uint64_t slots,
                     std::vector<sim::Segment>& played, const StopToken& stop) {
  if (fidelity == sim::Fidelity::per_pull) {
    families::with_sampler(instance.rewards(), [&]<class Rewards>(std::type_identity<Rewards>) {
      wait_per_pull<Rewards>(instance, client, stream, state, alpha, slots, played, stop);
    });
  } else {
    families::with_exact_sums(instance.rewards(), [&]<class Rewards>(std::type_identity<Rewards>) {
      wait_aggregated<Rewards>(instance, client, stream, state, alpha, slots, played, stop);
    });
  }
}

}  // namespace pfmab::algorithms
