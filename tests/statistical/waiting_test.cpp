// The authors'-code waiting in the aggregated mode rests on one sampler:
// the first pull at which a Gaussian random walk goes below 0, drawn exactly
// in O(log n) steps (rng::first_passage_below_zero). Here it is compared,
// as a distribution, with the walk itself drawn step by step.
//
// Sampling: 20000 draws per method and setting, from independent streams.
// What is compared: the pull at which the walk first goes below 0 (0: it
// never does within the length), by chi-square homogeneity over 20 bins of
// equal count in the step-by-step sample plus the "never" category, and the
// walk's value then (at the length if it never crosses), by two-sample KS.
// Level: each comparison rejects at p < 0.001; 5 settings x 2 comparisons
// make a family-wise false rejection at most 1% for a correct sampler. The
// seeds are fixed, so the test is deterministic; every p-value is printed.
// Power: a negative control (a drift 0.02 off) must be rejected.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "pfmab/families/registry.hpp"
#include "pfmab/rng/first_passage.hpp"
#include "pfmab/rng/samplers.hpp"
#include "pfmab/rng/streams.hpp"

#include "two_sample.hpp"

namespace pfmab::rng {
namespace {

constexpr double kLevel = 1e-3;
constexpr std::size_t kDraws = 20'000;

struct Walk {
  double start, drift, sigma;
  std::uint64_t length;
};

// The walk drawn step by step: the reference.
FirstPassage step_by_step(pcg32& stream, const Walk& w) {
  rng::UnitNormal normal;
  double y = w.start;
  for (std::uint64_t n = 1; n <= w.length; ++n) {
    y += w.drift + w.sigma * normal(stream);
    if (y < 0.0) return {n, y};
  }
  return {0, y};
}

struct Sample {
  std::vector<std::uint64_t> steps;
  std::vector<double> values;
};

template <class Draw>
Sample sample(std::uint64_t seed, Draw draw) {
  auto stream = rng::make_stream({seed, 0, 0, 0});
  Sample s;
  for (std::size_t i = 0; i < kDraws; ++i) {
    const auto p = draw(stream);
    s.steps.push_back(p.step);
    s.values.push_back(p.value);
  }
  return s;
}

// Bins of about equal count in the reference's crossing steps; 0 stays the
// "never" category.
std::vector<std::uint64_t> binned(const std::vector<std::uint64_t>& steps,
                                  const std::vector<std::uint64_t>& reference) {
  std::vector<std::uint64_t> crossed;
  for (const auto s : reference)
    if (s > 0) crossed.push_back(s);
  std::sort(crossed.begin(), crossed.end());
  std::vector<std::uint64_t> edges;
  for (int b = 1; b < 20 && !crossed.empty(); ++b)
    edges.push_back(crossed[crossed.size() * b / 20]);
  std::vector<std::uint64_t> out;
  for (const auto s : steps) {
    out.push_back(s == 0
                      ? 0
                      : 1 + static_cast<std::uint64_t>(
                                std::upper_bound(edges.begin(), edges.end(), s) - edges.begin()));
  }
  return out;
}

struct Comparison {
  double step_p, value_p;
  double crossed_exact, crossed_reference;  // fraction of draws that cross
};

Comparison compare(const Walk& exact_walk, const Walk& reference_walk, std::uint64_t seed) {
  const auto exact = sample(seed, [&](pcg32& stream) {
    return first_passage_below_zero(stream, exact_walk.start, exact_walk.drift, exact_walk.sigma,
                                    exact_walk.length);
  });
  const auto reference =
      sample(seed + 1, [&](pcg32& stream) { return step_by_step(stream, reference_walk); });
  auto crossed = [](const Sample& s) {
    return static_cast<double>(
               std::count_if(s.steps.begin(), s.steps.end(), [](auto n) { return n > 0; })) /
           static_cast<double>(s.steps.size());
  };
  return {testing::chi_square_homogeneity(binned(exact.steps, reference.steps),
                                          binned(reference.steps, reference.steps))
              .p_value,
          testing::ks_two_sample(exact.values, reference.values).p_value, crossed(exact),
          crossed(reference)};
}

TEST(FirstPassage, MatchesTheWalkDrawnStepByStep) {
  const std::vector<Walk> walks{
      // the fraction that crosses, as measured
      {3.0, 0.0, 1.0, 200},     // no drift: 80%
      {5.0, 0.05, 1.0, 400},    // drifting away: 53%
      {8.0, -0.05, 1.0, 400},   // drifting towards 0: 90%
      {0.2, 0.0, 1.0, 50},      // starting next to it: 90%, most at once
      {30.0, 0.01, 2.0, 1000},  // far, noisier, long: 57%
  };
  std::uint64_t seed = 10;
  for (const auto& w : walks) {
    const auto c = compare(w, w, seed += 2);
    std::ostringstream what;
    what << "start " << w.start << ", drift " << w.drift << ", sigma " << w.sigma << ", length "
         << w.length << ": crossing step chi2 p = " << c.step_p << ", value KS p = " << c.value_p
         << ", crossed " << c.crossed_exact << " / " << c.crossed_reference;
    std::cout << "[ p-values ] " << what.str() << '\n';
    EXPECT_GE(c.step_p, kLevel) << what.str();
    EXPECT_GE(c.value_p, kLevel) << what.str();
  }
}

TEST(FirstPassage, NegativeControlAnotherDriftIsRejected) {
  // the sampler with drift 0.02 against the walk with drift 0 (start 3,
  // length 200): fewer crossings, later (measured p ~ 1e-33 for both)
  const auto c = compare({3.0, 0.02, 1.0, 200}, {3.0, 0.0, 1.0, 200}, 90);
  std::cout << "[ p-values ] negative control: crossing step chi2 p = " << c.step_p
            << ", value KS p = " << c.value_p << '\n';
  EXPECT_LT(c.step_p, kLevel);
  EXPECT_LT(c.value_p, kLevel);
}

TEST(FirstPassage, WithoutNoiseItIsTheLine) {
  auto stream = rng::make_stream({1, 0, 0, 0});
  // 5 - n: 0 at n = 5 is not below 0; -1 at n = 6 is
  const auto a = first_passage_below_zero(stream, 5.0, -1.0, 0.0, 10);
  EXPECT_EQ(a.step, 6u);
  EXPECT_EQ(a.value, -1.0);
  const auto b = first_passage_below_zero(stream, 5.0, -1.0, 0.0, 5);  // ends at 0
  EXPECT_EQ(b.step, 0u);
  EXPECT_EQ(b.value, 0.0);
  const auto c = first_passage_below_zero(stream, 5.0, 0.5, 0.0, 10);
  EXPECT_EQ(c.step, 0u);
  EXPECT_EQ(c.value, 10.0);
}

}  // namespace
}  // namespace pfmab::rng
