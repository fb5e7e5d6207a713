#include "pfmab/sim/participants.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

#include <boost/random/uniform_int_distribution.hpp>

#include "pfmab/rng/samplers.hpp"

namespace pfmab::sim {
namespace {

// S of M uniformly: the first S places of a partial Fisher-Yates shuffle.
void draw_subset(std::size_t size, pcg32& stream, std::vector<bool>& participates) {
  const std::size_t count = participates.size();
  std::vector<std::uint32_t> order(count);
  std::iota(order.begin(), order.end(), 0u);
  for (std::size_t i = 0; i < size; ++i) {
    boost::random::uniform_int_distribution<std::size_t> pick(i, count - 1);
    std::swap(order[i], order[pick(stream)]);
  }
  std::fill(participates.begin(), participates.end(), false);
  for (std::size_t i = 0; i < size; ++i) participates[order[i]] = true;
}

// Every client with probability q given that one does: clients before the
// first participant J are absent by definition of J, J takes part, and the
// event "J = j" says nothing about clients after j, which stay independent
// Bernoulli(q) draws. The product is the conditioned law of the whole pattern:
// (1 - q)^j q / c * prod_{n > j} q^{x_n} (1 - q)^{1 - x_n}.
void draw_nonempty(double q, pcg32& stream, std::vector<bool>& participates) {
  const std::size_t first = first_participant(q, participates.size(), rng::uniform01(stream));
  for (std::size_t m = 0; m < participates.size(); ++m) {
    participates[m] = m == first || (m > first && rng::uniform01(stream) < q);
  }
}

}  // namespace

std::size_t first_participant(double q, std::size_t clients, double u) {
  const double log_absent = std::log1p(-q);  // log(1 - q); -inf for q = 1
  const double nonempty = -std::expm1(static_cast<double>(clients) * log_absent);  // c
  const double j = std::floor(std::log1p(-u * nonempty) / log_absent);
  // Rounding can put j on M exactly when u c is within an ulp of c.
  return std::min(static_cast<std::size_t>(j), clients - 1);
}

void draw_participants(const Participation& participation, pcg32& server_stream,
                       std::vector<bool>& participates) {
  if (participation.full(participates.size())) {
    std::fill(participates.begin(), participates.end(), true);
  } else if (participation.clients) {
    draw_subset(*participation.clients, server_stream, participates);
  } else {
    draw_nonempty(participation.probability, server_stream, participates);
  }
}

}  // namespace pfmab::sim
