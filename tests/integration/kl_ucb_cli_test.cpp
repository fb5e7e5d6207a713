// The KL-aware baselines through the real program: every family each takes,
// one digest on 1 and 2 threads.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "run_cli.hpp"

namespace pfmab::testing {
namespace {

std::vector<std::string> kl_run(const std::string& algorithm, const std::string& rewards,
                                const std::string& threads) {
  // the enhancement game's means are all positive, as exponential ones must be
  return {"run",         "--means",   shared_data("enhancement_4x9.csv"),
          "--algorithm", algorithm,   "--rewards",
          rewards,       "--alpha",   "0,0.5",
          "--horizon",   "2000",      "--replications",
          "4",           "--threads", threads,
          "--json"};
}

TEST(KlUcbCli, EveryFamilyItTakesWithOneDigestOnAnyThreadCount) {
  for (const std::string algorithm : {"local-kl-ucb", "centralized-kl-ucb"}) {
    for (const std::string rewards : {"gaussian", "bernoulli", "poisson", "exponential"}) {
      if (algorithm == "centralized-kl-ucb" && rewards == "exponential") continue;  // refused
      SCOPED_TRACE(algorithm + " " + rewards);
      const auto one = run_cli(kl_run(algorithm, rewards, "1"));
      ASSERT_EQ(one.exit_code, 0) << one.err;
      const auto two = run_cli(kl_run(algorithm, rewards, "2"));
      ASSERT_EQ(two.exit_code, 0) << two.err;
      EXPECT_FALSE(printed_digest(one).empty());
      EXPECT_EQ(printed_digest(one), printed_digest(two));
    }
  }
}

}  // namespace
}  // namespace pfmab::testing
