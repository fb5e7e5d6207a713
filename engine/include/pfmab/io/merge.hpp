#pragma once

#include <filesystem>
#include <span>

namespace pfmab::io {

// Joins the shards of one experiment (`run --shard I/N -o part-I.h5`, for I
// from 0 to N - 1) into `output`, whose rows, summaries and digest are those
// of the same experiment run in one piece: each cell's rows are the shards'
// rows end to end, summarised in that order.
//
// Refused with a UserError, before anything is written: parts that are not
// shards, shards of different experiments or splits, the same shard twice,
// a missing or incomplete shard (unless `partial`: the output then holds
// the replications present, recorded per cell in replication_ranges, and its
// summaries are over them), an existing output (unless `overwrite`) and an
// output that check_output refuses (not a regular file, one of the parts).
// The output is built beside its name (NewOutput) and moved there when
// complete; a failure to write it (SystemError) leaves nothing behind.
void merge_shards(std::span<const std::filesystem::path> parts,
                  const std::filesystem::path& output, bool partial, bool overwrite);

}  // namespace pfmab::io
