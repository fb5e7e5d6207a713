#include "pfmab/sim/time_used.hpp"

#include <limits>

#include <time.h>

namespace pfmab::sim {
namespace {

double thread_cpu_seconds() {
  timespec used{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &used);
  return static_cast<double>(used.tv_sec) + 1e-9 * static_cast<double>(used.tv_nsec);
}

double per(double seconds, std::uint64_t replications) {
  return replications == 0 ? std::numeric_limits<double>::quiet_NaN()
                           : seconds / static_cast<double>(replications);
}

}  // namespace

double TimeUsed::cpu_per_replication() const { return per(cpu_seconds, replications); }
double TimeUsed::wall_per_replication() const { return per(wall_seconds, replications); }

Stopwatch::Stopwatch()
    : cpu_start_(thread_cpu_seconds()), wall_start_(std::chrono::steady_clock::now()) {}

TimeUsed Stopwatch::elapsed() const {
  return {thread_cpu_seconds() - cpu_start_,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count(), 1};
}

}  // namespace pfmab::sim
