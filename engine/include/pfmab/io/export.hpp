#pragma once

#include <ostream>

#include "pfmab/io/results_file.hpp"

namespace pfmab::io {

// `pfmab export`: an output as one tidy CSV table for pandas, R or a
// spreadsheet (docs/outputs.md, "Exporting"). Every key of a cell is a
// column (the instance by its name, instance_names(); empty where the key has
// no effect on the cell). The wide table has one row per cell and then every
// field of `pfmab summary --json`'s cell, named as pfmab.Results.summary
// names them (regret_mean, bounds_c_star_log_T, regret_over_c_star_log_T_ci95_low):
// the summary is the one list of its columns. The long one (`long_form`)
// has one row per cell and checkpoint: clients, arms, replications done and
// asked, `slot` and every summary series' statistics there (empty until the
// cell is complete).
void export_csv(const ResultsReader& file, std::ostream& out, bool long_form);

}  // namespace pfmab::io
