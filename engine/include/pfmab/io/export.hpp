#pragma once

#include <ostream>

#include "pfmab/io/results_file.hpp"

namespace pfmab::io {

// `pfmab export`: an output as one tidy CSV table for pandas, R or a
// spreadsheet (docs/outputs.md, "Exporting"). Every key of a cell is a
// column (empty where the key has no effect on the cell), then what the cell
// is made of (clients, arms, replications done and asked). The wide table
// has one row per cell with the final-slot statistics of `pfmab summary`;
// the long one (`long_form`) one row per cell and checkpoint, with `slot`
// and every summary series' statistics there (empty until the cell is
// complete).
void export_csv(const ResultsReader& file, std::ostream& out, bool long_form);

}  // namespace pfmab::io
