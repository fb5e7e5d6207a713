// Progress for a batch job's log: plain lines (no carriage return, no
// terminal codes) saying done/total, share, rate and ETA, one per period;
// none when off. The remaining time reads as a person reads it.
#include "pfmab/io/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace pfmab::io {
namespace {

// What the process wrote to stderr while `body` ran.
template <class Body>
std::string stderr_of(Body&& body) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("pfmab-progress-" + std::to_string(::getpid()));
  std::fflush(stderr);
  const int saved = ::dup(STDERR_FILENO);
  std::FILE* file = std::fopen(path.c_str(), "w");
  ::dup2(::fileno(file), STDERR_FILENO);
  body();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::fclose(file);
  std::ifstream in(path);
  std::string text{std::istreambuf_iterator<char>(in), {}};
  std::filesystem::remove(path);
  return text;
}

TEST(ProgressDisplay, LoggedLinesSayDoneTotalShareRateAndEta) {
  std::atomic<std::uint64_t> done{0};
  const auto text = stderr_of([&] {
    const ProgressDisplay progress(done, 200, ProgressStyle::logged, std::chrono::milliseconds(20));
    for (int i = 0; i < 10; ++i) {
      done += 10;
      std::this_thread::sleep_for(std::chrono::milliseconds(15));
    }
  });
  std::istringstream lines(text);
  std::vector<std::string> seen;
  for (std::string line; std::getline(lines, line);) seen.push_back(line);
  // 150 ms of run, a line per 20 ms: several, however the scheduler wakes it
  ASSERT_GE(seen.size(), 2u) << text;
  for (const auto& line : seen) {
    EXPECT_EQ(line.rfind("pfmab: ", 0), 0u) << line;
    EXPECT_NE(line.find("/200 replications ("), std::string::npos) << line;
    EXPECT_NE(line.find("%)  "), std::string::npos) << line;
    EXPECT_NE(line.find("/s  ETA "), std::string::npos) << line;
  }
  EXPECT_EQ(text.find_first_of("\r\033"), std::string::npos) << "no terminal codes in a log";
}

TEST(ProgressDisplay, NoneWritesNothing) {
  std::atomic<std::uint64_t> done{5};
  const auto text = stderr_of([&] {
    const ProgressDisplay progress(done, 10, ProgressStyle::none, std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  });
  EXPECT_EQ(text, "");
}

TEST(ProgressDisplay, DurationReadsAsSecondsMinutesOrHours) {
  EXPECT_EQ(duration_text(0), "0s");
  EXPECT_EQ(duration_text(19.4), "19s");
  EXPECT_EQ(duration_text(99.4), "99s");
  EXPECT_EQ(duration_text(725), "12m05s");
  EXPECT_EQ(duration_text(5999), "99m59s");
  EXPECT_EQ(duration_text(10'920), "3h02m");
  EXPECT_EQ(duration_text(360'000), "100h00m");
}

}  // namespace
}  // namespace pfmab::io
