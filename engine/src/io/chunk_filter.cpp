#include "io/chunk_filter.hpp"

#include <algorithm>
#include <cassert>
#include <memory>

#include <libdeflate.h>

#include "pfmab/util/error.hpp"

#include "io/hdf5.hpp"
#include "io/row_records.hpp"

namespace pfmab::io {
namespace {

struct FreeCompressor {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};

libdeflate_compressor& thread_compressor() {
  thread_local const std::unique_ptr<libdeflate_compressor, FreeCompressor> compressor(
      libdeflate_alloc_compressor(static_cast<int>(h5::kDeflateLevel)));
  if (!compressor) throw SystemError("cannot allocate a deflate compressor: out of memory");
  return *compressor;
}

// As H5Z__filter_shuffle does it: the records' bytes grouped by their place
// in the record; a chunk of one record, or bytes past the last whole record,
// as they are.
void shuffle(std::span<const std::byte> in, std::size_t record_size, std::vector<std::byte>& out) {
  out.resize(in.size());
  const std::size_t records = in.size() / record_size;
  if (records <= 1) {
    std::copy(in.begin(), in.end(), out.begin());
    return;
  }
  // In tiles of kTile records: a tile's records stay in the L1 cache while
  // each of their bytes is gathered, where a record at a time read every
  // record once per byte (a 2.4 KB record: 2,400 passes over the chunk).
  constexpr std::size_t kTile = 16;
  for (std::size_t first = 0; first < records; first += kTile) {
    const std::size_t tile = std::min(kTile, records - first);
    for (std::size_t byte = 0; byte < record_size; ++byte) {
      std::byte* to = out.data() + byte * records + first;
      const std::byte* from = in.data() + first * record_size + byte;
      for (std::size_t r = 0; r < tile; ++r) to[r] = from[r * record_size];
    }
  }
  const std::size_t whole = records * record_size;
  std::copy(in.begin() + static_cast<std::ptrdiff_t>(whole), in.end(),
            out.begin() + static_cast<std::ptrdiff_t>(whole));
}

}  // namespace

void filter_chunk(const RowBlock& block, std::size_t chunk_rows, std::vector<std::byte>& stored) {
  assert(block.rows <= chunk_rows);
  thread_local std::vector<std::byte> records, shuffled;
  const RowRecords layout(block.checkpoints, block.clients);
  records.clear();
  layout.pack(block, 0, block.rows, records);
  records.resize(chunk_rows * layout.size());  // the whole chunk, zero past its rows
  shuffle(records, layout.size(), shuffled);
  auto& compressor = thread_compressor();
  stored.resize(libdeflate_zlib_compress_bound(&compressor, shuffled.size()));
  const auto size = libdeflate_zlib_compress(&compressor, shuffled.data(), shuffled.size(),
                                             stored.data(), stored.size());
  // the bound is never exceeded (libdeflate.h)
  if (size == 0) throw SystemError("deflate could not compress a chunk within its bound");
  stored.resize(size);
}

}  // namespace pfmab::io
