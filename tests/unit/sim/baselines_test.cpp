// Unit tests of the baselines (local-ucb, centralized-ucb): written by the
// baselines' author.
#include "pfmab/sim/baselines.hpp"
