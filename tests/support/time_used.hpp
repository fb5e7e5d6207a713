#pragma once

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace pfmab::testing {

// A report (`run --json`, `summary --json`) without what computing its
// cells took, which varies from run to run: what two runs of one experiment
// print alike, whatever their threads, processes or interruptions.
inline std::string without_time_used(const std::string& report_text) {
  auto report = nlohmann::json::parse(report_text);
  for (auto& cell : report.at("cells")) {
    for (const auto* name : {"cpu_seconds", "wall_seconds", "timed_replications",
                             "cpu_seconds_per_replication", "wall_seconds_per_replication"}) {
      // each of them is there to be removed: a renamed one fails here
      EXPECT_TRUE(cell.contains(name)) << name;
      cell.erase(name);
    }
  }
  return report.dump();
}

}  // namespace pfmab::testing
