#include "pfmab/sim/waiting.hpp"

#include <cmath>
#include <optional>

#include "pfmab/rng/samplers.hpp"

namespace pfmab::sim {
namespace {

// The first time s at which a Brownian motion with variance sigma^2 per unit
// time and drift `drift`, started at a > 0, hits 0, given that it does:
// inverse Gaussian with mean a / |drift| and shape a^2 / sigma^2 (with the
// drift away from 0, conditioning on the hit reverses it), Levy for no
// drift. Michael, Schucany and Haas (1976), in the form without
// cancellation.
double hitting_time(pcg32& stream, double a, double drift, double sigma) {
  if (a <= 0.0) return 0.0;
  rng::UnitNormal normal;
  const double z = normal(stream);
  const double shape = a * a / (sigma * sigma);
  if (drift == 0.0) return shape / (z * z);
  const double mean = a / std::abs(drift);
  const double r = mean * z * z / (2.0 * shape);
  const double x = mean / (1.0 + r + std::sqrt(r * (2.0 + r)));
  return rng::uniform01(stream) * (mean + x) <= mean ? x : mean * mean / x;
}

}  // namespace

FirstPassage first_passage_below_zero(pcg32& stream, double start, double drift, double sigma,
                                      std::uint64_t length) {
  start = std::max(start, 0.0);
  if (length == 0) return {0, start};
  if (sigma == 0.0) {  // a straight line
    const double end = start + drift * static_cast<double>(length);
    if (end >= 0.0) return {0, end};
    // end < 0: the line crosses within `length` slots (the min guards rounding)
    const auto step =
        static_cast<std::uint64_t>(std::min(std::floor(start / -drift), static_cast<double>(length - 1))) + 1;
    return {step, start + drift * static_cast<double>(step)};
  }
  rng::UnitNormal normal;
  const double total = static_cast<double>(length);
  const double end = start + drift * total + sigma * std::sqrt(total) * normal(stream);
  // From whole time `now` (value y >= 0) to `length` (value `end`) the walk is
  // a Brownian bridge; by the time change s = t T / (T - t) its first hit of
  // 0 is that of a Brownian motion from y with drift end / T. After the hit
  // (at time t, between whole times) the path is again a bridge, from 0 to
  // `end`: sample it at the next whole time; below 0 is the first passage,
  // else the search goes on from there.
  std::uint64_t now = 0;
  double y = start;
  while (now < length) {
    const double span = static_cast<double>(length - now);
    const bool hits =
        end < 0.0 || rng::uniform01(stream) < std::exp(-2.0 * y * end / (sigma * sigma * span));
    if (!hits) break;
    const double s = hitting_time(stream, y, end / span, sigma);
    const double t = std::isinf(s) ? span : s * span / (span + s);
    const double next = std::min(std::floor(t) + 1.0, span);
    const double after = next - t, rest = span - next;
    const double value =
        end * after / (span - t) + sigma * std::sqrt(after * rest / (span - t)) * normal(stream);
    now += static_cast<std::uint64_t>(next);
    if (value < 0.0) return {now, value};
    y = value;
  }
  return {0, end};
}

namespace {

// The arm played now and the best of the others, with their values.
struct Contest {
  std::uint32_t played = 0;
  std::optional<std::uint32_t> rival;
  double rival_value = 0.0;
};

Contest contest(const algorithms::PfUcbClient& state, std::size_t arms, double alpha) {
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

void extend(std::vector<Segment>& played, std::uint32_t arm, std::uint64_t slots) {
  if (!played.empty() && played.back().arm == arm) {
    played.back().slots += slots;
  } else {
    played.push_back({arm, slots});
  }
}

// One reward of `arm`, drawn as per-pull exploration draws it.
double draw_one(const model::Instance& instance, std::size_t client, pcg32& stream,
                std::uint32_t arm) {
  const double mu = instance.local_mean(client, arm);
  if (instance.rewards().kind == model::RewardKind::gaussian) {
    rng::UnitNormal normal;
    return mu + instance.rewards().sigma * normal(stream);
  }
  return std::uint64_t{stream()} < rng::bernoulli_threshold(mu) ? 1.0 : 0.0;
}

// The sum of n rewards of `arm`, drawn at once as aggregated exploration does.
double draw_sum(const model::Instance& instance, std::size_t client, pcg32& stream,
                std::uint32_t arm, std::uint64_t n) {
  Run run;
  run.arms = std::span(&arm, 1);
  run.rounds = n;
  double sum = 0.0;
  explore_aggregated(instance, client, stream, run, std::span(&sum, 1));
  return sum;
}

void wait_per_pull(const model::Instance& instance, std::size_t client, pcg32& stream,
                   algorithms::PfUcbClient& state, double alpha, std::uint64_t slots,
                   std::vector<Segment>& played, const StopToken& stop) {
  auto c = contest(state, instance.arms(), alpha);
  for (; slots > 0; --slots) {
    stop.poll(slots);
    state.record(c.played, 1, draw_one(instance, client, stream, c.played));
    extend(played, c.played, 1);
    if (!still_leads(c, state.exploit_value(c.played, alpha))) {
      c = contest(state, instance.arms(), alpha);
    }
  }
}

void wait_aggregated(const model::Instance& instance, std::size_t client, pcg32& stream,
                     algorithms::PfUcbClient& state, double alpha, std::uint64_t slots,
                     std::vector<Segment>& played, const StopToken& stop) {
  const bool gaussian = instance.rewards().kind == model::RewardKind::gaussian;
  for (std::uint64_t step = 1; slots > 0; ++step) {
    stop.poll(step);
    const auto c = contest(state, instance.arms(), alpha);
    const std::uint32_t b = c.played;
    // Nothing can take over: a fixed arm, no rival, or values that do not
    // move (alpha = 0).
    if (!c.rival || alpha == 0.0) {
      state.record(b, slots, draw_sum(instance, client, stream, b, slots));
      extend(played, b, slots);
      return;
    }
    // b loses once alpha s_b / T_b + (1 - alpha) mu_bar_b < the rival's value,
    // i.e. once the walk Y = s_b - theta T_b goes below 0.
    const double theta = (c.rival_value - (1.0 - alpha) * state.global_mean(b)) / alpha;
    const double y = state.sum(b) - theta * static_cast<double>(state.pulls(b));
    const double mu = instance.local_mean(client, b);
    std::uint64_t n = 0;
    double sum = 0.0;
    if (gaussian) {
      const auto passage =
          first_passage_below_zero(stream, y, mu - theta, instance.rewards().sigma, slots);
      n = passage.step > 0 ? passage.step : slots;
      sum = passage.value - std::max(y, 0.0) + theta * static_cast<double>(n);
    } else {
      // Every failure lowers Y by theta: this many pulls cannot cross, one
      // pull kept in hand against rounding.
      const double safe = theta > 0.0 ? std::floor(y / theta) - 1.0 : static_cast<double>(slots);
      if (safe >= 1.0) {
        n = std::min(slots, static_cast<std::uint64_t>(std::min(safe, 0x1p62)));
        sum = draw_sum(instance, client, stream, b, n);
      } else {
        n = 1;
        sum = draw_sum(instance, client, stream, b, 1);
      }
    }
    state.record(b, n, sum);
    extend(played, b, n);
    slots -= n;
  }
}

}  // namespace

void wait_exploiting(Fidelity fidelity, const model::Instance& instance, std::size_t client,
                     pcg32& stream, algorithms::PfUcbClient& state, double alpha,
                     std::uint64_t slots, std::vector<Segment>& played, const StopToken& stop) {
  if (fidelity == Fidelity::per_pull) {
    wait_per_pull(instance, client, stream, state, alpha, slots, played, stop);
  } else {
    wait_aggregated(instance, client, stream, state, alpha, slots, played, stop);
  }
}

}  // namespace pfmab::sim
