// A chunk filtered by pfmab (io/chunk_filter.hpp, on any thread) is the
// chunk HDF5's own filters make of the same rows: the same shuffle, and a
// zlib stream that zlib (as HDF5 does) inflates to it. What differs is only
// the deflate encoder (ISA-L's, not zlib's), which every reader undoes
// alike.
#include "io/chunk_filter.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <hdf5.h>
#include <zlib.h>

#include "pfmab/algorithms/pf_ucb.hpp"
#include "pfmab/sim/runner.hpp"

#include "fixtures.hpp"
#include "io/hdf5.hpp"
#include "io/row_records.hpp"
#include "temp_dir.hpp"

namespace pfmab::testing {
namespace {

namespace h5 = io::h5;

// `rows` replications of a 2 x 3 game, as one block of rows.
io::RowBlock block_of(std::size_t rows) {
  sim::CellSpec spec;
  spec.algorithm = algorithms::pf_ucb();
  spec.instance = instance_of({{0.9, 0.1, 0.5}, {0.2, 0.8, 0.4}});
  spec.horizon = 20'000;
  const std::vector<sim::Cell> cells{sim::Cell(spec, 0)};
  sim::RunOptions options;
  options.replications = rows;
  io::RowBlock block;
  block.reset(0, cells[0].checkpoints().size(), 2);
  const auto results = sim::run_sweep(cells, options);
  for (const auto& r : results[0]) block.append(r);
  return block;
}

std::vector<std::byte> inflate(const std::vector<std::byte>& stored, std::size_t size) {
  std::vector<std::byte> out(size);
  uLongf got = size;
  EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(out.data()), &got,
                       reinterpret_cast<const Bytef*>(stored.data()), stored.size()),
            Z_OK);
  EXPECT_EQ(got, size);
  return out;
}

// The first chunk of a rows dataset of `chunk_rows` rows, written by HDF5
// through its filters from `block`, as stored (its filter mask 0).
std::vector<std::byte> stored_by_hdf5(const std::filesystem::path& path, const io::RowBlock& block,
                                      hsize_t chunk_rows) {
  const io::RowRecords records(block.checkpoints, block.clients);
  h5::Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  h5::create_rows(file.get(), "replications", records.type().get(), chunk_rows);
  h5::Handle set(H5Dopen2(file.get(), "replications", H5P_DEFAULT));
  std::vector<std::byte> bytes;
  records.pack(block, 0, block.rows, bytes);
  h5::set_rows(set.get(), block.rows);
  EXPECT_GE(H5Dwrite(set.get(), records.type().get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()),
            0);
  EXPECT_GE(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), 0);
  const hsize_t origin = 0;
  hsize_t size = 0;
  EXPECT_GE(H5Dget_chunk_storage_size(set.get(), &origin, &size), 0);
  std::vector<std::byte> stored(size);
  std::uint32_t mask = 1;
  EXPECT_GE(H5Dread_chunk(set.get(), H5P_DEFAULT, &origin, &mask, stored.data()), 0);
  EXPECT_EQ(mask, 0u) << "HDF5 skipped a filter";
  return stored;
}

// Chunks of 64 rows: whole (64 rows), a cell's last rows (23 of 64: HDF5
// leaves the rest of the chunk as it finds it, so only the rows compare),
// and a chunk of one row (which HDF5's shuffle leaves as it is).
TEST(ChunkFilter, ShufflesAsHdf5DoesAndInflatesAsItsChunk) {
  TempDir dir("chunk_filter");
  for (const auto& [rows, chunk_rows] :
       {std::pair<std::size_t, std::size_t>{64, 64}, {23, 64}, {1, 1}}) {
    SCOPED_TRACE(std::to_string(rows) + " rows of a " + std::to_string(chunk_rows) + "-row chunk");
    const auto block = block_of(rows);
    const io::RowRecords records(block.checkpoints, block.clients);
    const auto size = chunk_rows * records.size();

    std::vector<std::byte> ours;
    io::filter_chunk(block, chunk_rows, ours);
    const auto theirs = stored_by_hdf5(dir / "hdf5.h5", block, chunk_rows);
    EXPECT_LT(ours.size(), size / 2) << "not compressed";

    const auto our_bytes = inflate(ours, size), their_bytes = inflate(theirs, size);
    // byte b of record r is at b * chunk_rows + r once shuffled
    const std::size_t planes = chunk_rows > 1 ? records.size() : 1;
    const std::size_t per_plane = chunk_rows > 1 ? chunk_rows : records.size();
    const std::size_t valid = chunk_rows > 1 ? rows : records.size();
    std::size_t differ = 0;
    for (std::size_t b = 0; b < planes; ++b) {
      for (std::size_t r = 0; r < valid; ++r) {
        differ += our_bytes[b * per_plane + r] != their_bytes[b * per_plane + r];
      }
    }
    EXPECT_EQ(differ, 0u) << "of " << planes * valid << " bytes";
  }
}

}  // namespace
}  // namespace pfmab::testing
