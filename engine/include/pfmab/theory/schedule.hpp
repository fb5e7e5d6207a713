#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pfmab::theory {

// The exploration schedules of the paper's appendix (Table 3).
enum class ScheduleKind {
  doubling_log,  // f(p) = 2^p log T (the paper's default)
  constant,      // f(p) = lambda
  constant_log,  // f(p) = lambda log T
  doubling,      // f(p) = 2^p
};

struct ScheduleSpec {
  ScheduleKind kind = ScheduleKind::doubling_log;
  double lambda = 1.0;  // for the constant schedules
  double factor = 1.0;  // multiplies f(p), e.g. ~1/C when communication is costly
};

// Throws UserError for a non-positive or non-finite lambda (constant
// schedules) or factor.
void validate(const ScheduleSpec& spec);

// f(p) and F(p) = sum_{q<=p} f(q) for one horizon. Valid once constructed.
class ExplorationSchedule {
 public:
  // Throws what validate(spec) throws, and UserError for a log T schedule at
  // T = 1 (log 1 = 0 would give phases of length zero).
  ExplorationSchedule(ScheduleSpec spec, std::uint64_t horizon);

  const ScheduleSpec& spec() const { return spec_; }
  double f(std::uint64_t phase) const;           // phase >= 1
  double cumulative(std::uint64_t phase) const;  // F(p)

 private:
  ScheduleSpec spec_;
  double scale_;  // factor, times lambda and/or log T as the kind asks
};

std::string_view to_string(ScheduleKind kind);            // the name parse_schedule_kind takes
ScheduleKind parse_schedule_kind(std::string_view name);  // throws UserError
std::string describe(const ScheduleSpec& spec);           // e.g. "2^p log T" or "0.5 * 10 log T"

}  // namespace pfmab::theory
