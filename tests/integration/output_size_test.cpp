// Outputs sized to what ran (issue 15, item 5). A cell's row datasets are
// chunked by at most its replications, so that a cell of few replications
// takes its data and a fixed cost, not a 256-row chunk per dataset. The
// writer ends its writes on each cell's chunks as the file records them, so
// an output written with the 256-row chunks of earlier versions, and a merge,
// whose cells grow past their first shard's share, go on in their own.
#include <cstdint>
#include <filesystem>
#include <string>
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

// The chunk of every row dataset of cell 0, by column: [rows, values], or
// [rows] for a 1-D one.
std::vector<std::vector<hsize_t>> chunks(const fs::path& path) {
  h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  std::vector<std::vector<hsize_t>> out;
  sim::for_each_column([&](const auto& column) {
    h5::Handle set(H5Dopen2(
        file.get(), (std::string("cells/0000/replications/") + column.name).c_str(), H5P_DEFAULT));
    h5::Handle create(H5Dget_create_plist(set.get()));
    std::vector<hsize_t> chunk(2);
    chunk.resize(static_cast<std::size_t>(H5Pget_chunk(create.get(), 2, chunk.data())));
    out.push_back(chunk);
  });
  return out;
}

// What chunks(path) gives if cell 0's chunks have `rows` rows.
std::vector<std::vector<hsize_t>> chunks_of(hsize_t rows, const fs::path& path) {
  const io::ResultsReader reader(path);
  const auto& cell = reader.cells()[0];
  std::vector<std::vector<hsize_t>> out;
  sim::for_each_column([&](const auto& column) {
    const auto values = io::columns_of(column, cell.checkpoints.size(), cell.clients);
    out.push_back(values == 0 ? std::vector<hsize_t>{rows} : std::vector<hsize_t>{rows, values});
  });
  return out;
}

TEST(OutputChunks, ACellsChunksHoldAtMostItsReplications) {
  for (const std::uint64_t replications : {1, 20, 255, 256, 600}) {
    SCOPED_TRACE(std::to_string(replications) + " replications");
    TempDir dir("chunks");
    const auto e = experiment(dir, replications);
    { io::ResultsWriter writer(dir / "out.h5", e, e.cells, false); }
    EXPECT_EQ(chunks(dir / "out.h5"),
              chunks_of(std::min<std::uint64_t>(replications, 256), dir / "out.h5"));
  }
  // a shard's cell holds its share: replications [6, 13) of 20
  TempDir dir("shard");
  const auto e = experiment(dir, 20);
  { io::ResultsWriter writer(dir / "out.h5", e, e.cells, false, sim::Shard{1, 3}); }
  EXPECT_EQ(chunks(dir / "out.h5"), chunks_of(7, dir / "out.h5"));
}

TEST(OutputChunks, AnOutputWith256RowChunksIsContinuedInThem) {
  // what pfmab wrote before chunks were sized to the cell: 256-row chunks
  // for 20 replications, 7 of them written when the run was stopped
  TempDir dir("old");
  const auto e = experiment(dir, 20);
  const auto path = dir / "out.h5";
  { io::ResultsWriter writer(path, e, e.cells, false); }
  {
    h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    h5::Handle rows(H5Gopen2(file.get(), "cells/0000/replications", H5P_DEFAULT));
    const auto& cell = e.cells[0];
    sim::for_each_column([&](const auto& column) {
      ASSERT_GE(H5Ldelete(rows.get(), column.name, H5P_DEFAULT), 0);
      h5::create_rows<sim::ElementOf<decltype(column)>>(
          rows.get(), column.name,
          io::columns_of(column, cell.checkpoints().size(), cell.instance().clients()), 256);
    });
  }
  sim::RunOptions options;
  options.seed = e.seed;
  options.replications = e.replications;
  const auto results = sim::run_sweep(e.cells, options)[0];
  {
    io::ResultsWriter writer(path, e, e.cells, false);
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
  EXPECT_EQ(chunks(path), chunks_of(256, path));
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
  EXPECT_EQ(chunks(dir / "merged.h5"), chunks_of(6, dir / "merged.h5"));
  const auto a = single.read(0, 0, 20), b = joined.read(0, 0, 20);
  for (std::size_t r = 0; r < 20; ++r) {
    expect_same_result(b[r], a[r], "replication " + std::to_string(r));
  }
}

}  // namespace
}  // namespace pfmab::testing
