#pragma once

#include <cstddef>
#include <vector>

#include <pcg_random.hpp>

#include "pfmab/sim/participation.hpp"

namespace pfmab::sim {

// Who takes part in a phase (docs/algorithms.md, "Partial participation"),
// drawn from the server's stream into `participates` (one entry per client):
// - every client (q = 1 or S = M): no draw at all, so that plain PF-UCB's
//   streams are untouched;
// - S of M: a uniform S-subset, by a partial Fisher-Yates shuffle;
// - probability q: every client independently with probability q,
//   conditioned on at least one taking part (a phase needs someone to
//   explore), drawn exactly in at most M draws whatever q: the first
//   participant from its truncated geometric law (first_participant), every
//   later client independently with probability q.
void draw_participants(const Participation& participation, pcg32& server_stream,
                       std::vector<bool>& participates);

// The first participant J of `clients` independent Bernoulli(q) trials given
// that one succeeds: P(J = j) = (1 - q)^j q / (1 - (1 - q)^M), j < M, taken by
// inversion of its CDF at `u` in [0, 1): J = floor(log(1 - u c) / log(1 - q))
// with c = 1 - (1 - q)^M. log1p and expm1 keep it exact in the limit of tiny q
// (J uniform for q = 1e-300, where 1 - q rounds to 1). q in (0, 1].
std::size_t first_participant(double q, std::size_t clients, double u);

}  // namespace pfmab::sim
