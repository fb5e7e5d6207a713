#include "pfmab/sim/cell.hpp"

#include <cmath>

#include <fmt/format.h>

#include "pfmab/sim/checkpoints.hpp"
#include "pfmab/util/error.hpp"

namespace pfmab::sim {
namespace {

const CellSpec& validated(const CellSpec& spec) {
  if (spec.horizon < 1) {
    throw UserError("horizon T must be at least 1 slot");
  }
  if (!(std::isfinite(spec.comm_cost) && spec.comm_cost >= 0.0)) {
    throw UserError(
        fmt::format("communication cost C = {} must be a finite number >= 0", spec.comm_cost));
  }
  return spec;
}

}  // namespace

Cell::Cell(CellSpec spec, std::uint64_t index)
    : spec_(validated(spec)),
      index_(index),
      measured_(*spec_.instance, spec_.alpha),
      rule_(spec_.params, spec_.alpha, spec_.instance->clients(), spec_.horizon),
      checkpoints_(checkpoint_grid(spec_.horizon)) {}

}  // namespace pfmab::sim
