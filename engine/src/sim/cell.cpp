#include "pfmab/sim/cell.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "pfmab/sim/checkpoints.hpp"
#include "pfmab/util/checked.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/limits.hpp"

namespace pfmab::sim {

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
  if (!spec.algorithm) throw std::logic_error("a cell needs an algorithm");
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
  model::validate_alpha(spec.algorithm_alpha.value_or(spec.alpha));
  validate(spec.participation, spec.instance->clients());
  return spec;
}

}  // namespace

Cell::Cell(CellSpec spec, std::uint64_t index)
    : spec_(validated(std::move(spec))),
      index_(index),
      measured_(*spec_.instance, spec_.alpha),
      algorithm_(spec_.algorithm({*spec_.instance, algorithm_alpha(), spec_.horizon})),
      checkpoints_(checkpoint_grid(spec_.horizon, spec_.checkpoints.log_points,
                                   spec_.checkpoints.linear_points)) {
  if (algorithm_->protocol() != Protocol::phased &&
      !spec_.participation.full(instance().clients())) {
    throw UserError(fmt::format(
        "partial participation is PF-UCB's and other phased algorithms'; {} decides every slot, "
        "with every client",
        algorithm_->name()));
  }
  // The reward family against what the algorithm and the mode draw and
  // assume of it: checked here, once per cell, for every algorithm.
  const auto& rewards = instance().rewards();
  if (const auto why = algorithm_->refuses(rewards); !why.empty()) {
    throw UserError(fmt::format("{}: {}", algorithm_->name(), why));
  }
  if (drawn_fidelity() == Fidelity::aggregated && !rewards.family().exact_sums()) {
    throw UserError(fmt::format(
        "{} rewards cannot be drawn in the aggregated mode (it draws the sum of a run of pulls at "
        "once, and a sum of {} rewards has no closed law): use --mode per-pull",
        rewards.name(), rewards.family().display()));
  }
}

std::string refuses_unless_subgaussian(std::string_view what,
                                       const families::RewardFamily& rewards) {
  if (!std::isnan(rewards.subgaussian_sigma())) return {};
  return fmt::format(
      "{} assumes sub-Gaussian rewards; {} rewards are not (local-kl-ucb and local-thompson "
      "run on them, centralized-kl-ucb where their KL is convex)",
      what, rewards.name());
}

Fidelity Cell::drawn_fidelity() const {
  return algorithm_->protocol() == Protocol::slot_by_slot ? Fidelity::per_pull : spec_.fidelity;
}

theory::Bounds Algorithm::bounds(const Cell& cell, theory::Games& games,
                                 const StopToken& stop) const {
  return theory::compute_bounds(cell.instance(), cell.measured(), games, nullptr, cell.horizon(),
                                cell.spec().comm_cost,
                                fmt::format("Theorem 2 bounds PF-UCB, not {}", name()), stop);
}

}  // namespace pfmab::sim
