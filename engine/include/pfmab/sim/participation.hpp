#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pfmab::sim {

// What the server averages under partial participation
// (docs/algorithms.md, "Partial participation").
enum class Aggregation {
  latest,        // every client's last report, stale for the absent ones: consistent
  participants,  // this phase's participants' reports only: biased when clients differ
};

std::string_view to_string(Aggregation aggregation);   // "latest", "participants"
Aggregation parse_aggregation(std::string_view name);  // throws UserError

// Cross-device participation (the first open direction of Sec. 8): each
// phase, every client takes part with probability q (given that one does),
// or exactly S clients drawn uniformly do. Absent clients keep exploiting;
// the server charges communication for the participants only.
struct Participation {
  double probability = 1.0;              // q
  std::optional<std::uint64_t> clients;  // S, instead of q
  Aggregation aggregation = Aggregation::latest;

  // Every client, every phase: plain PF-UCB (the aggregation is then moot).
  bool full(std::size_t clients_in_game) const {
    return clients ? *clients == clients_in_game : probability == 1.0;
  }
};

// Throws UserError for q outside (0, 1], S outside [1, M], or both given.
void validate(const Participation& participation, std::size_t clients_in_game);

}  // namespace pfmab::sim
