#include "pfmab/sim/participation.hpp"

#include <cmath>

#include <fmt/format.h>

#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/limits.hpp"

namespace pfmab::sim {

std::string_view to_string(Aggregation aggregation) {
  return aggregation == Aggregation::latest ? "latest" : "participants";
}

Aggregation parse_aggregation(std::string_view name) {
  if (name == "latest") return Aggregation::latest;
  if (name == "participants") return Aggregation::participants;
  throw UserError(
      fmt::format("unknown aggregation '{}' (expected 'latest', every client's last report, or "
                  "'participants', this phase's only)",
                  name));
}

void validate(const Participation& participation, std::size_t clients_in_game) {
  if (participation.clients) {
    if (participation.probability != 1.0) {
      throw UserError(
          "give either a participation probability q or a number of clients S, not both");
    }
    if (*participation.clients < 1 || *participation.clients > clients_in_game) {
      throw UserError(fmt::format("{} participating clients: S must be from 1 to M = {}",
                                  *participation.clients, clients_in_game));
    }
    return;
  }
  limits::check(participation.probability, "participation probability q",
                limits::participation);
}

}  // namespace pfmab::sim
