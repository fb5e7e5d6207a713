#include "pfmab/theory/schedule.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"
#include "pfmab/util/limits.hpp"

namespace pfmab::theory {
namespace {

bool uses_log(ScheduleKind kind) {
  return kind == ScheduleKind::doubling_log || kind == ScheduleKind::constant_log;
}
bool uses_lambda(ScheduleKind kind) {
  return kind == ScheduleKind::constant || kind == ScheduleKind::constant_log;
}
bool doubles(ScheduleKind kind) {
  return kind == ScheduleKind::doubling_log || kind == ScheduleKind::doubling;
}

}  // namespace

void validate(const ScheduleSpec& spec) {
  limits::check(spec.factor, "schedule factor", limits::schedule_scale);
  if (uses_lambda(spec.kind)) limits::check(spec.lambda, "schedule lambda", limits::schedule_scale);
}

ExplorationSchedule::ExplorationSchedule(ScheduleSpec spec, std::uint64_t horizon) : spec_(spec) {
  validate(spec);
  if (uses_log(spec.kind) && horizon < 2) {
    throw UserError(fmt::format(
        "schedule '{}' needs a horizon of at least 2 (log T = 0 at T = 1 gives empty phases)",
        to_string(spec.kind)));
  }
  scale_ = spec.factor;
  if (uses_lambda(spec.kind)) scale_ *= spec.lambda;
  if (uses_log(spec.kind)) scale_ *= std::log(static_cast<double>(horizon));
}

namespace {

// 2^p as a double: +infinity from p = 1024 on, where p no longer fits the
// exponent (a phase count can reach 2^62 under a constant schedule).
double power_of_two(std::uint64_t p) {
  return std::ldexp(1.0, static_cast<int>(std::min<std::uint64_t>(p, 1100)));
}

}  // namespace

double ExplorationSchedule::f(std::uint64_t phase) const {
  return doubles(spec_.kind) ? scale_ * power_of_two(phase) : scale_;
}

double ExplorationSchedule::cumulative(std::uint64_t phase) const {
  // sum_{q=1}^{p} 2^q = 2^{p+1} - 2
  return doubles(spec_.kind) ? scale_ * (power_of_two(phase + 1) - 2.0)
                             : scale_ * static_cast<double>(phase);
}

std::string_view to_string(ScheduleKind kind) {
  switch (kind) {
    case ScheduleKind::doubling_log:
      return "doubling-log";
    case ScheduleKind::constant:
      return "constant";
    case ScheduleKind::constant_log:
      return "constant-log";
    case ScheduleKind::doubling:
      return "doubling";
  }
  return "?";
}

ScheduleKind parse_schedule_kind(std::string_view name) {
  for (auto kind : {ScheduleKind::doubling_log, ScheduleKind::constant, ScheduleKind::constant_log,
                    ScheduleKind::doubling}) {
    if (name == to_string(kind)) return kind;
  }
  throw UserError(fmt::format(
      "unknown schedule '{}' (expected doubling-log, constant, constant-log or doubling)",
      excerpt(name)));
}

std::string describe(const ScheduleSpec& spec) {
  std::string formula;
  switch (spec.kind) {
    case ScheduleKind::doubling_log:
      formula = "2^p log T";
      break;
    case ScheduleKind::constant:
      formula = fmt::format("{}", spec.lambda);
      break;
    case ScheduleKind::constant_log:
      formula = fmt::format("{} log T", spec.lambda);
      break;
    case ScheduleKind::doubling:
      formula = "2^p";
      break;
  }
  return spec.factor == 1.0 ? formula : fmt::format("{} * {}", spec.factor, formula);
}

}  // namespace pfmab::theory
