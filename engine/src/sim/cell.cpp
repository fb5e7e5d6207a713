#include "pfmab/sim/cell.hpp"

#include <cmath>

#include <fmt/format.h>

#include "pfmab/sim/checkpoints.hpp"
#include "pfmab/util/error.hpp"

namespace pfmab::sim {
void validate_horizon(std::uint64_t horizon) {
  if (horizon < 1) throw UserError("horizon T must be at least 1 slot");
}

void validate_comm_cost(double comm_cost) {
  if (!(std::isfinite(comm_cost) && comm_cost >= 0.0)) {
    throw UserError(
        fmt::format("communication cost C = {} must be a finite number >= 0", comm_cost));
  }
}

namespace {

const CellSpec& validated(const CellSpec& spec) {
  validate_horizon(spec.horizon);
  validate_comm_cost(spec.comm_cost);
  return spec;
}

}  // namespace

Cell::Cell(CellSpec spec, std::uint64_t index)
    : spec_(validated(spec)),
      index_(index),
      measured_(*spec_.instance, spec_.alpha),
      rule_(spec_.params, spec_.alpha, spec_.instance->clients(), spec_.horizon),
      checkpoints_(checkpoint_grid(spec_.horizon, spec_.checkpoints.log_points,
                                   spec_.checkpoints.linear_points)) {}

}  // namespace pfmab::sim
