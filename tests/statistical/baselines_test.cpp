// Statistical tests of the baselines: written by the baselines' author.
#include "pfmab/sim/baselines.hpp"
