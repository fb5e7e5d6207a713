#include "io/chunk_filter.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>

#include <fmt/format.h>
#include <isa-l/igzip_lib.h>

#include "pfmab/util/error.hpp"

#include "io/hdf5.hpp"
#include "io/row_records.hpp"

namespace pfmab::io {
namespace {

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
  // ISA-L's stateless deflate, whose level needs a work buffer of its own
  static_assert(h5::kDeflateLevel == 1, "the work buffer is level 1's");
  thread_local std::vector<std::uint8_t> work(ISAL_DEF_LVL1_DEFAULT);
  // room for a chunk that does not compress (stored blocks) and the header
  stored.resize(shuffled.size() + shuffled.size() / 8 + ISAL_DEF_MAX_HDR_SIZE + 64);
  isal_zstream stream;
  isal_deflate_stateless_init(&stream);
  stream.level = h5::kDeflateLevel;
  stream.level_buf = work.data();
  stream.level_buf_size = static_cast<std::uint32_t>(work.size());
  stream.gzip_flag = IGZIP_ZLIB;  // a zlib stream, as HDF5's deflate filter stores
  stream.end_of_stream = 1;
  stream.flush = NO_FLUSH;
  stream.next_in = reinterpret_cast<std::uint8_t*>(shuffled.data());
  stream.avail_in = static_cast<std::uint32_t>(shuffled.size());
  stream.next_out = reinterpret_cast<std::uint8_t*>(stored.data());
  stream.avail_out = static_cast<std::uint32_t>(stored.size());
  if (isal_deflate_stateless(&stream) != COMP_OK) {
    throw SystemError(
        fmt::format("deflate could not compress a chunk of {} bytes", shuffled.size()));
  }
  stored.resize(stream.total_out);
}

}  // namespace pfmab::io
