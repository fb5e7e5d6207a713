#pragma once

// A chunk of a rows dataset as the file stores it: through the dataset's
// filters, shuffle then deflate (h5::create_rows), applied here rather than
// by HDF5. So any thread can filter a chunk, not only the one that calls
// HDF5 (io::WriterThread), and the records go to the file as packed bytes,
// without HDF5's conversion of its compound type. The deflate stream is
// libdeflate's, about 1.5 times faster than zlib's at the same level and no
// larger (bench/README.md, "A writer that keeps up"); any reader inflates it
// as it would zlib's.

#include <cstddef>
#include <vector>

#include "pfmab/io/row_block.hpp"

namespace pfmab::io {

// The rows of `block`, which start a chunk of `chunk_rows` rows and are the
// last it will hold (the whole chunk, or the cell's last rows), as the file
// stores that chunk, into `stored` (replaced): their records (RowRecords),
// zero past the last, through HDF5's shuffle filter (H5Zshuffle.c: byte j
// of every record, for j = 0, 1, ...), then deflated at h5::kDeflateLevel.
// Calls no HDF5, so any thread may; each uses its own compressor.
void filter_chunk(const RowBlock& block, std::size_t chunk_rows, std::vector<std::byte>& stored);

}  // namespace pfmab::io
