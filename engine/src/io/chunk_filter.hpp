#pragma once

// A chunk of a rows dataset as the file stores it: through the dataset's
// filters, shuffle then deflate (h5::create_rows), applied here rather than
// by HDF5. So any thread can filter a chunk, not only the one that calls
// HDF5 (io::WriterThread), and the records go to the file as packed bytes,
// without HDF5's conversion of its compound type. The deflate stream is
// ISA-L's (igzip, level 1): 6 times as fast as zlib's level 1 on the rows of
// an aggregated sweep, 3.5 to 6 times libdeflate's, and no larger than
// zlib's (bench/README.md, "A writer that keeps up"). Any reader inflates it
// as it would zlib's.

#include <cstddef>
#include <vector>

#include "pfmab/io/row_block.hpp"

namespace pfmab::io {

// The rows of `block`, which start a chunk of `chunk_rows` rows and are the
// last it will hold (the whole chunk, or the cell's last rows), as the file
// stores that chunk, into `stored` (replaced): their records (RowRecords),
// zero past the last, through HDF5's shuffle filter (H5Zshuffle.c: byte j
// of every record, for j = 0, 1, ...), then deflated at h5::kDeflateLevel
// into a zlib stream. Calls no HDF5, so any thread may; each has its own
// work buffers.
void filter_chunk(const RowBlock& block, std::size_t chunk_rows, std::vector<std::byte>& stored);

}  // namespace pfmab::io
