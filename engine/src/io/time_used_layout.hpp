#pragma once

// Where an output holds the time its cells' replications took
// (docs/outputs.md, "time_used"): beside results_layout.hpp, which creates
// it with the cell's other datasets.

#include <optional>

#include "pfmab/sim/time_used.hpp"

#include "io/hdf5.hpp"

namespace pfmab::io {

// A cell's dataset `time_used`: 3 doubles, its replications' CPU seconds,
// wall seconds, and how many replications they cover. A dataset, not
// attributes: SWMR, under which the writer updates it, changes the values
// of existing datasets only. Created with the cell, all zero.
void create_time_used(hid_t group);
// None in an output made before pfmab recorded it: its cells' time is
// unknown, and stays so when it is continued (SWMR creates nothing).
std::optional<sim::TimeUsed> read_time_used(hid_t group);
void write_time_used(hid_t group, const sim::TimeUsed& used);

}  // namespace pfmab::io
