// Outputs sized to what ran (issue 15, item 5). A cell's row datasets are
// chunked by at most its replications, so that a cell of few replications
// takes its data and a fixed cost, not a 256-row chunk per dataset. The
// writer ends its writes on each cell's chunks as the file records them, so
// an output written with the 256-row chunks of earlier versions, and a merge,
// whose cells grow past their first shard's share, go on in their own. A
// chunk written whole is shuffled and deflated; one written in parts is
// stored unfiltered, in place, and the file holds no dead copy of it.
//
// Issue 25: a chunk's rows wait in the writer until it is complete, so an
// output's bytes, and its size, depend on the experiment only, not on the
// moments its rows reached the writer (the thread count, the load); a
// merge is about the size of the single run; the writer's metadata cache
// has a fixed size, so that a flush costs the same after any number of
// cells.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <hdf5.h>

#include "pfmab/io/experiment.hpp"
#include "pfmab/io/results_file.hpp"
#include "pfmab/sim/columns.hpp"
#include "pfmab/sim/runner.hpp"

#include "fixtures.hpp"
#include "io/hdf5.hpp"
#include "io/results_layout.hpp"
#include "io/row_records.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace pfmab::testing {
namespace {

namespace fs = std::filesystem;
namespace h5 = io::h5;

// One cell of `replications`: the synthetic game, alpha 0.5, T = 2e4 (about
// 60 checkpoints, a few microseconds per replication).
std::vector<std::string> flags(std::uint64_t replications) {
  return {
      "--means",        shared_data("synthetic_4x9.csv"), "--alpha", "0.5", "--horizon", "2e4",
      "--replications", std::to_string(replications),     "--seed",  "15",  "--quiet",   "--json"};
}

io::Experiment experiment(const TempDir& dir, std::uint64_t replications) {
  dir.write("exp.toml", "seed = 15\nalpha = 0.5\nhorizon = 2e4\nreplications = " +
                            std::to_string(replications) + "\n[instance]\nmeans = \"" +
                            shared_data("synthetic_4x9.csv") + "\"\n");
  return io::load_experiment(dir / "exp.toml");
}

// The rows of a chunk of cell 0's rows dataset.
hsize_t chunk_rows(const fs::path& path) {
  h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  h5::Handle set(H5Dopen2(file.get(), "cells/0000/replications", H5P_DEFAULT));
  h5::Handle create(H5Dget_create_plist(set.get()));
  hsize_t chunk = 0;
  EXPECT_EQ(H5Pget_chunk(create.get(), 1, &chunk), 1);
  return chunk;
}

// Chunk `index` (in the order of their rows) of cell 0's rows dataset: its
// filter mask (bit i set: filter i skipped) and its size in the file.
std::pair<unsigned, hsize_t> chunk_info(const fs::path& path, hsize_t index = 0) {
  h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  h5::Handle set(H5Dopen2(file.get(), "cells/0000/replications", H5P_DEFAULT));
  h5::Handle space(H5Dget_space(set.get()));
  hsize_t offset[1];
  unsigned mask = 0;
  haddr_t address = 0;
  hsize_t size = 0;
  h5::check(H5Dget_chunk_info(set.get(), space.get(), index, offset, &mask, &address, &size),
            "H5Dget_chunk_info");
  return {mask, size};
}

// The bytes of the values of every dataset of an output: its raw data.
hsize_t raw_bytes(const fs::path& path) {
  h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  hsize_t total = 0;
  const auto add = [](hid_t group, const char* name, const H5L_info_t*, void* sum) -> herr_t {
    h5::Handle object(H5Oopen(group, name, H5P_DEFAULT));
    if (H5Iget_type(object.get()) != H5I_DATASET) return 0;
    h5::Handle space(H5Dget_space(object.get())), type(H5Dget_type(object.get()));
    *static_cast<hsize_t*>(sum) +=
        static_cast<hsize_t>(H5Sget_simple_extent_npoints(space.get())) * H5Tget_size(type.get());
    return 0;
  };
  h5::check(H5Lvisit(file.get(), H5_INDEX_NAME, H5_ITER_NATIVE, add, &total), "H5Lvisit");
  return total;
}

// What a cell costs beside its data, with room: its metadata (6 dataset and
// 1 group object headers, about 40 attributes, the chunk index of its rows
// dataset) and its entry in the root's experiment_canonical, which holds its
// means (8 KB for MovieLens' 10 x 40).
constexpr hsize_t kCellCost = 32 * 1024;

// The replications of `e`'s one cell, computed here.
std::vector<sim::ReplicationResult> results_of(const io::Experiment& e) {
  sim::RunOptions options;
  options.seed = e.seed;
  options.replications = e.replications(0);
  return sim::run_sweep(e.cells, options)[0];
}

TEST(OutputChunks, ACellsChunksHoldAtMostItsReplications) {
  for (const std::uint64_t replications : {1, 20, 255, 256, 600}) {
    SCOPED_TRACE(std::to_string(replications) + " replications");
    TempDir dir("chunks");
    const auto e = experiment(dir, replications);
    {
      theory::Games games;
      io::ResultsWriter writer(dir / "out.h5", e, e.cells, games, false);
    }
    EXPECT_EQ(chunk_rows(dir / "out.h5"), std::min<std::uint64_t>(replications, 256));
  }
  // a shard's cell holds its share: replications [6, 13) of 20
  TempDir dir("shard");
  const auto e = experiment(dir, 20);
  {
    theory::Games games;
    io::ResultsWriter writer(dir / "out.h5", e, e.cells, games, false, sim::Shard{1, 3});
  }
  EXPECT_EQ(chunk_rows(dir / "out.h5"), 7);
}

TEST(OutputChunks, AnOutputWith256RowChunksIsContinuedInThem) {
  // what pfmab wrote before chunks were sized to the cell: 256-row chunks
  // for 20 replications, 7 of them written when the run was stopped
  TempDir dir("old");
  const auto e = experiment(dir, 20);
  const auto path = dir / "out.h5";
  {
    theory::Games games;
    io::ResultsWriter writer(path, e, e.cells, games, false);
  }
  {
    h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    h5::Handle group(H5Gopen2(file.get(), "cells/0000", H5P_DEFAULT));
    const auto& cell = e.cells[0];
    ASSERT_GE(H5Ldelete(group.get(), "replications", H5P_DEFAULT), 0);
    h5::create_rows(
        group.get(), "replications",
        io::RowRecords(cell.checkpoints().size(), cell.instance().clients()).type().get(), 256);
  }
  const auto results = results_of(e);
  {
    theory::Games games;
    io::ResultsWriter writer(path, e, e.cells, games, false);
    EXPECT_EQ(writer.rows_to_chunk_end(0, 0), 256u);
    for (std::size_t r = 0; r < 7; ++r) writer.append(0, results[r]);
    EXPECT_EQ(writer.rows_to_chunk_end(0, 7), 249u);
  }

  // the program continues it (its writer thread's blocks end on the file's
  // chunks) to the results and digest of a run without output
  const auto plain = run_cli({"run", (dir / "exp.toml").string(), "--quiet", "--json"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const auto resumed =
      run_cli({"run", (dir / "exp.toml").string(), "-o", path.string(), "--quiet", "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(printed_digest(resumed), printed_digest(plain));
  EXPECT_EQ(chunk_rows(path), 256);
  const io::ResultsReader reader(path);
  ASSERT_EQ(reader.cells()[0].done, 20u);
  const auto stored = reader.read(0, 0, 20);
  for (std::size_t r = 0; r < 20; ++r) {
    expect_same_result(stored[r], results[r], "replication " + std::to_string(r));
  }
}

TEST(OutputChunks, AMergeGoesOnInItsFirstShardsChunks) {
  // 20 replications in shares of 6, 7 and 7: the merge's cell, a copy of the
  // first shard's, has 6-row chunks, which the other shards' rows cross
  TempDir dir("merge");
  const auto whole = run_cli(run_to(flags(20), dir / "whole.h5"));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  std::vector<std::string> merge{"merge"};
  for (const auto* shard : {"0/3", "1/3", "2/3"}) {
    const auto part = dir / ("part-" + std::string(1, shard[0]) + ".h5");
    const auto r = run_cli(run_to(flags(20), part, {"--shard", shard}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    merge.push_back(part.string());
  }
  merge.insert(merge.end(), {"-o", (dir / "merged.h5").string(), "--json"});
  const auto merged = run_cli(merge);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(printed_digest(merged), printed_digest(whole));

  const io::ResultsReader single(dir / "whole.h5"), joined(dir / "merged.h5");
  EXPECT_EQ(chunk_rows(dir / "merged.h5"), 6);
  const auto a = single.read(0, 0, 20), b = joined.read(0, 0, 20);
  for (std::size_t r = 0; r < 20; ++r) {
    expect_same_result(b[r], a[r], "replication " + std::to_string(r));
  }
}

TEST(OutputChunks, AGrownCellGoesOnPastItsCompressedEdgeChunk) {
  // 300 replications: a whole 256-row chunk and an edge chunk of 44 rows,
  // both compressed as the cell ends; grown to 600, the edge chunk gains
  // rows in parts from its compressed first 44, which are read back first
  TempDir dir("grow");
  const auto path = dir / "out.h5";
  const auto small = run_cli(run_to(flags(300), path));
  ASSERT_EQ(small.exit_code, 0) << small.err;
  const auto [edge_mask, edge_size] = chunk_info(path, 1);
  EXPECT_EQ(edge_mask, 0u) << "the cell's last chunk was not compressed";
  EXPECT_GT(edge_size, 0u);

  const auto grown = run_cli(run_to(flags(600), path));
  ASSERT_EQ(grown.exit_code, 0) << grown.err;
  const auto fresh = run_cli(run_to(flags(600), dir / "fresh.h5"));
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  EXPECT_EQ(printed_digest(grown), printed_digest(fresh));
  EXPECT_EQ(chunk_rows(path), 256);
  const io::ResultsReader a(path), b(dir / "fresh.h5");
  ASSERT_EQ(a.cells()[0].done, 600u);
  EXPECT_TRUE(a.rows(0, 0, 600).values == b.rows(0, 0, 600).values);
}

TEST(OutputFilters, TheRowsAreShuffledThenDeflatedAtLevel1) {
  TempDir dir("filters");
  const auto e = experiment(dir, 20);
  {
    theory::Games games;
    io::ResultsWriter writer(dir / "out.h5", e, e.cells, games, false);
  }
  h5::Handle file(H5Fopen((dir / "out.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  h5::Handle set(H5Dopen2(file.get(), "cells/0000/replications", H5P_DEFAULT));
  h5::Handle create(H5Dget_create_plist(set.get()));
  ASSERT_EQ(H5Pget_nfilters(create.get()), 2);
  unsigned flags = 0, level = 0;
  std::size_t values = 1;
  EXPECT_EQ(H5Pget_filter2(create.get(), 0, &flags, &values, &level, 0, nullptr, nullptr),
            H5Z_FILTER_SHUFFLE);
  values = 1;
  EXPECT_EQ(H5Pget_filter2(create.get(), 1, &flags, &values, &level, 0, nullptr, nullptr),
            H5Z_FILTER_DEFLATE);
  EXPECT_EQ(level, 1u);
}

TEST(OutputFilters, AChunkWrittenWholeIsCompressedAndOneWrittenInPartsIsStoredInPlace) {
  TempDir dir("parts");
  const auto e = experiment(dir, 20);
  const auto results = results_of(e);
  const hsize_t raw_chunk =
      20 * io::RowRecords(e.cells[0].checkpoints().size(), e.cells[0].instance().clients()).size();
  // whole: the 20 rows in one block
  {
    theory::Games games;
    io::ResultsWriter writer(dir / "whole.h5", e, e.cells, games, false);
    for (const auto& r : results) writer.append(0, r);
  }
  const auto [whole_mask, whole_size] = chunk_info(dir / "whole.h5");
  EXPECT_EQ(whole_mask, 0u) << "a whole chunk skipped a filter";
  EXPECT_LT(whole_size, raw_chunk / 2);
  // in 20 parts, flushed one by one, the writer reopened half way: the
  // chunk's earlier rows are read back once and then kept
  for (const std::size_t stop : {std::size_t{7}, results.size()}) {
    theory::Games games;
    io::ResultsWriter writer(dir / "parts.h5", e, e.cells, games, false);
    for (std::size_t r = writer.done(0); r < stop; ++r) {
      writer.append(0, results[r]);
      writer.flush();
    }
  }
  const auto [parts_mask, parts_size] = chunk_info(dir / "parts.h5");
  EXPECT_EQ(parts_mask, 3u) << "a chunk written in parts went through a filter";
  EXPECT_EQ(parts_size, raw_chunk);
  // no copy of the chunk left behind per part: the file is its data and its
  // metadata (a chunk compressed anew at each of 20 parts left about 10
  // times its compressed size)
  EXPECT_LT(fs::file_size(dir / "parts.h5"), raw_bytes(dir / "parts.h5") + kCellCost);

  for (const auto* name : {"whole.h5", "parts.h5"}) {
    SCOPED_TRACE(name);
    const io::ResultsReader reader(dir / name);
    ASSERT_EQ(reader.cells()[0].done, 20u);
    const auto stored = reader.read(0, 0, 20);
    for (std::size_t r = 0; r < 20; ++r) {
      expect_same_result(stored[r], results[r], "replication " + std::to_string(r));
    }
  }
}

// Every chunk of cell 0's rows dataset was stored compressed.
void expect_every_chunk_compressed(const fs::path& path) {
  h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  h5::Handle set(H5Dopen2(file.get(), "cells/0000/replications", H5P_DEFAULT));
  hsize_t count = 0;
  h5::Handle space(H5Dget_space(set.get()));
  ASSERT_GE(H5Dget_num_chunks(set.get(), space.get(), &count), 0);
  EXPECT_GT(count, 0u);
  for (hsize_t i = 0; i < count; ++i) {
    EXPECT_EQ(chunk_info(path, i).first, 0u) << "chunk " << i << " skipped a filter";
  }
}

TEST(OutputSize, AnOutputsSizeDoesNotDependOnHowItsRowsReachTheWriter) {
  // 600 replications: two whole 256-row chunks and an edge chunk of 88.
  // Handed over a chunk at a time (a fast run), one row at a time (what a
  // writer thread hands over when each block waits past its limit: a slow
  // run, or a loaded machine) or in uneven blocks, the file is the same.
  TempDir dir("arrival");
  const auto e = experiment(dir, 600);
  const auto results = results_of(e);
  const auto& cell = e.cells[0];
  const auto write = [&](const std::string& name, std::size_t block_rows) {
    theory::Games games;
    io::ResultsWriter writer(dir / name, e, e.cells, games, false);
    for (std::size_t first = 0; first < results.size();) {
      io::RowBlock block;
      block.reset(0, cell.checkpoints().size(), cell.instance().clients());
      const auto end = std::min<std::size_t>(
          {results.size(), first + block_rows, first + writer.rows_to_chunk_end(0, first)});
      for (; first < end; ++first) block.append(results[first]);
      writer.append(block);
    }
    writer.close();
    return fs::file_size(dir / name);
  };
  const auto whole = write("whole.h5", 256);
  expect_every_chunk_compressed(dir / "whole.h5");
  for (const std::size_t block_rows : {1, 7, 100}) {
    SCOPED_TRACE(std::to_string(block_rows) + " rows per block");
    const auto name = "blocks-" + std::to_string(block_rows) + ".h5";
    EXPECT_EQ(write(name, block_rows), whole);
    expect_every_chunk_compressed(dir / name);
    const io::ResultsReader a(dir / "whole.h5"), b(dir / name);
    EXPECT_TRUE(a.rows(0, 0, 600).values == b.rows(0, 0, 600).values);
  }
}

TEST(OutputSize, TheProgramsOutputIsTheSameSizeOnOneThreadAndOnTwo) {
  // the FullDisk tests' reference: 2 cells of 20,000 short replications
  TempDir dir("threads");
  const std::vector<std::string> large{
      "--means", shared_data("synthetic_4x9.csv"), "--alpha", "0,0.5", "--horizon", "1e4",
      "--replications", "20000", "--seed", "1", "--quiet", "--json"};
  std::vector<std::uintmax_t> sizes;
  for (const auto* threads : {"1", "2"}) {
    const auto out = dir / (std::string("out-") + threads + ".h5");
    const auto r = run_cli(run_to(large, out, {"--threads", threads}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    sizes.push_back(fs::file_size(out));
  }
  EXPECT_EQ(sizes[0], sizes[1]);
  expect_every_chunk_compressed(dir / "out-1.h5");
}

TEST(OutputSize, AMergeIsAboutTheSizeOfTheSingleRun) {
  // 1,000 replications in 2 shards of 500: the merge goes on in the first
  // shard's 256-row chunks, of which the second ends at row 500, half way
  // through the next shard's first rows. Such a chunk was stored unfiltered
  // (issue 25: the merge 4.6 times the single run's size).
  constexpr double kRatio = 1.05;
  TempDir dir("merge-size");
  const auto single = run_cli(run_to(flags(1000), dir / "single.h5"));
  ASSERT_EQ(single.exit_code, 0) << single.err;
  std::vector<std::string> merge{"merge"};
  for (const auto* shard : {"0/2", "1/2"}) {
    const auto part = dir / ("part-" + std::string(1, shard[0]) + ".h5");
    const auto r = run_cli(run_to(flags(1000), part, {"--shard", shard}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    merge.push_back(part.string());
  }
  merge.insert(merge.end(), {"-o", (dir / "merged.h5").string(), "--json"});
  const auto merged = run_cli(merge);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(printed_digest(merged), printed_digest(single));
  const auto single_size = fs::file_size(dir / "single.h5");
  const auto merged_size = fs::file_size(dir / "merged.h5");
  EXPECT_LE(static_cast<double>(merged_size), kRatio * static_cast<double>(single_size))
      << merged_size << " bytes merged, " << single_size << " the single run";
  expect_every_chunk_compressed(dir / "merged.h5");
  const io::ResultsReader a(dir / "single.h5"), b(dir / "merged.h5");
  EXPECT_TRUE(a.rows(0, 0, 1000).values == b.rows(0, 0, 1000).values);
}

TEST(OutputCost, TheWritersMetadataCacheHasAFixedSize) {
  // HDF5's default cache grows to 32 MiB, and a flush walks all of it: the
  // writer's flushes cost more with every cell written before (issue 25).
  TempDir dir("cache");
  const auto e = experiment(dir, 20);
  {
    theory::Games games;
    io::ResultsWriter writer(dir / "out.h5", e, e.cells, games, false);
  }
  for (const auto readers : {io::Readers::allowed, io::Readers::none}) {
    const auto file = io::open_for_writing(dir / "out.h5", readers);
    H5AC_cache_config_t config{};
    config.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    ASSERT_GE(H5Fget_mdc_config(file.get(), &config), 0);
    EXPECT_EQ(config.max_size, h5::kMetadataCache);
    EXPECT_EQ(config.min_size, h5::kMetadataCache);
    EXPECT_EQ(config.incr_mode, H5C_incr__off);
    EXPECT_EQ(config.flash_incr_mode, H5C_flash_incr__off);
    EXPECT_EQ(config.decr_mode, H5C_decr__off);
  }
}

TEST(OutputSize, AFileOfFewReplicationsIsItsDataAndAFixedCostPerCell) {
  // The target: at most 1.3 times the raw data, plus a fixed cost
  // per cell. Worst case: every chunk written in parts, so unfiltered.
  constexpr double kRatio = 1.3;
  TempDir dir("size");
  const auto e = experiment(dir, 20);
  const auto results = results_of(e);
  {
    theory::Games games;
    io::ResultsWriter writer(dir / "out.h5", e, e.cells, games, false);
    for (const auto& r : results) {
      writer.append(0, r);
      writer.flush();
    }
  }
  const auto size = fs::file_size(dir / "out.h5");
  const auto raw = raw_bytes(dir / "out.h5");
  EXPECT_LE(static_cast<double>(size), kRatio * static_cast<double>(raw) + kCellCost)
      << size << " bytes for " << raw << " of data";
}

}  // namespace
}  // namespace pfmab::testing
