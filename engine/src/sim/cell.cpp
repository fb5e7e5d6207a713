#include "pfmab/sim/cell.hpp"

#include <cmath>

#include <fmt/format.h>

#include "pfmab/model/limits.hpp"
#include "pfmab/sim/checkpoints.hpp"
#include "pfmab/util/checked.hpp"
#include "pfmab/util/error.hpp"

namespace pfmab::sim {

Fidelity drawn_fidelity(algorithms::AlgorithmKind algorithm, Fidelity mode) {
  return algorithms::is_pf_ucb(algorithm) ? mode : Fidelity::per_pull;
}

void validate_horizon(std::uint64_t horizon) {
  if (horizon < 1) throw UserError("horizon T must be at least 1 slot");
  if (horizon > limits::max_horizon) {
    throw UserError(fmt::format("horizon T = {} is above 2^62 = {}, the longest pfmab counts",
                                horizon, limits::max_horizon));
  }
}

void validate_comm_cost(double comm_cost) {
  limits::check(comm_cost, "communication cost C", limits::comm_cost);
}

namespace {

CellSpec validated(CellSpec spec) {
  validate_horizon(spec.horizon);
  // Every count of pulls (per arm, per client, summed over clients) is then
  // exact in 64 bits.
  const auto clients = spec.instance->clients();
  if (const auto pulls = checked_mul(clients, spec.horizon); !pulls || *pulls > limits::max_pulls) {
    throw UserError(fmt::format(
        "M T = {} clients x {} slots is above 2^62, the most pulls pfmab counts exactly", clients,
        spec.horizon));
  }
  validate_comm_cost(spec.comm_cost);
  using namespace algorithms;
  spec.params.enhanced = spec.algorithm == AlgorithmKind::pf_ucb_enhanced;
  if (!is_pf_ucb(spec.algorithm)) {
    const auto name = to_string(spec.algorithm);
    if (spec.params.preset != Preset::paper) {
      throw UserError(fmt::format("the preset '{}' is PF-UCB's; {} has none (use 'paper')",
                                  to_string(spec.params.preset), name));
    }
    if (spec.params.lengths != Lengths::paper) {
      throw UserError(fmt::format("the exploration lengths '{}' are PF-UCB's; {} has none",
                                  to_string(spec.params.lengths), name));
    }
    if (!spec.participation.full(spec.instance->clients())) {
      throw UserError(fmt::format("partial participation is PF-UCB's; {} has every client", name));
    }
  }
  validate(spec.participation, spec.instance->clients());
  return spec;
}

}  // namespace

Cell::Cell(CellSpec spec, std::uint64_t index)
    : spec_(validated(std::move(spec))),
      index_(index),
      measured_(*spec_.instance, spec_.alpha),
      rule_(spec_.params, spec_.algorithm_alpha.value_or(spec_.alpha), spec_.instance->clients(),
            spec_.horizon),
      checkpoints_(checkpoint_grid(spec_.horizon, spec_.checkpoints.log_points,
                                   spec_.checkpoints.linear_points)) {}

theory::Bounds bounds_of(const Cell& cell) {
  using namespace algorithms;
  const auto& spec = cell.spec();
  std::string inapplicable;
  if (spec.algorithm == AlgorithmKind::pf_ucb_enhanced) {
    inapplicable = "Theorem 2 bounds plain PF-UCB; the enhanced lengths are not analysed (Sec. 6)";
  } else if (!is_pf_ucb(spec.algorithm)) {
    inapplicable = fmt::format("Theorem 2 bounds PF-UCB, not {}", to_string(spec.algorithm));
  } else if (spec.params.preset != Preset::paper) {
    inapplicable = "Theorem 2 is stated for Algorithm 1, not the authors' code";
  } else if (spec.params.lengths != Lengths::paper) {
    inapplicable = "Theorem 2 is stated for the lengths of Sec. 4, not the large-M ones";
  } else if (!spec.participation.full(cell.instance().clients())) {
    inapplicable = "Theorem 2 is stated for every client in every phase";
  } else if (cell.algorithm_alpha() != spec.alpha) {
    inapplicable = "Theorem 2 is stated for the algorithm's alpha equal to the measured one";
  }
  return theory::compute_bounds(cell.instance(), cell.measured(), cell.rule(), cell.horizon(),
                                spec.comm_cost, inapplicable);
}

}  // namespace pfmab::sim
