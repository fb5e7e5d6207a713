#include "pfmab/theory/schedule.hpp"

#include <gtest/gtest.h>

#include "pfmab/util/error.hpp"

namespace pfmab::theory {
namespace {

// log(1e6) = 13.815510557964274 (by hand: 6 ln 10 = 6 * 2.302585092994046)
constexpr double kLog1e6 = 13.815510557964274;

TEST(ExplorationSchedule, DoublingLogIsTwoToThePTimesLogT) {
  const ExplorationSchedule s({ScheduleKind::doubling_log}, 1'000'000);
  EXPECT_NEAR(s.f(1), 2 * kLog1e6, 1e-12);
  EXPECT_NEAR(s.f(3), 8 * kLog1e6, 1e-12);
  // F(3) = (2 + 4 + 8) log T
  EXPECT_NEAR(s.cumulative(3), 14 * kLog1e6, 1e-12);
}

TEST(ExplorationSchedule, ConstantAndDoublingWithoutLog) {
  const ExplorationSchedule constant({ScheduleKind::constant, 3.0}, 1000);
  EXPECT_DOUBLE_EQ(constant.f(7), 3.0);
  EXPECT_DOUBLE_EQ(constant.cumulative(7), 21.0);
  const ExplorationSchedule doubling({ScheduleKind::doubling}, 1000);
  EXPECT_DOUBLE_EQ(doubling.f(4), 16.0);
  EXPECT_DOUBLE_EQ(doubling.cumulative(4), 30.0);
}

TEST(ExplorationSchedule, ConstantLogAndFactor) {
  const ExplorationSchedule s({ScheduleKind::constant_log, 10.0, 0.5}, 1'000'000);
  EXPECT_NEAR(s.f(5), 5 * kLog1e6, 1e-12);
  EXPECT_NEAR(s.cumulative(2), 10 * kLog1e6, 1e-12);
  EXPECT_EQ(describe(s.spec()), "0.5 * 10 log T");
}

TEST(ExplorationSchedule, RejectsWhatWouldGiveEmptyPhases) {
  EXPECT_THROW(ExplorationSchedule({ScheduleKind::doubling_log}, 1), UserError);
  EXPECT_THROW(ExplorationSchedule({ScheduleKind::constant, 0.0}, 100), UserError);
  EXPECT_THROW(ExplorationSchedule({ScheduleKind::doubling, 1.0, -1.0}, 100), UserError);
  EXPECT_NO_THROW(ExplorationSchedule({ScheduleKind::doubling}, 1));
}

TEST(ExplorationSchedule, NamesRoundTrip) {
  for (auto kind : {ScheduleKind::doubling_log, ScheduleKind::constant, ScheduleKind::constant_log,
                    ScheduleKind::doubling}) {
    EXPECT_EQ(parse_schedule_kind(to_string(kind)), kind);
  }
  EXPECT_THROW(parse_schedule_kind("exponential"), UserError);
}

}  // namespace
}  // namespace pfmab::theory
