#pragma once

#include "pfmab/families/bernoulli.hpp"
#include "pfmab/families/exponential.hpp"
#include "pfmab/families/gaussian.hpp"
#include "pfmab/families/poisson.hpp"

// The KL divergences of the four one-parameter families the tight bound is
// tested with: the engine's families' own, under the names the tests use.
namespace pfmab::test {

using GaussianKl = families::Gaussian::Kl;
using BernoulliKl = families::Bernoulli::Kl;
using PoissonKl = families::Poisson::Kl;
using ExponentialKl = families::Exponential::Kl;

}  // namespace pfmab::test
