#include "pfmab/io/merge.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "pfmab/io/results_file.hpp"
#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"

#include "io/output_file.hpp"

namespace pfmab::io {
namespace {

struct Part {
  std::filesystem::path path;
  std::unique_ptr<ResultsReader> file;
  sim::Shard shard;
};

std::vector<Part> read_parts(std::span<const std::filesystem::path> paths) {
  std::vector<Part> parts;
  for (const auto& path : paths) {
    auto file = std::make_unique<ResultsReader>(path);  // UserError if not a pfmab output
    const auto shard = file->shard();
    if (shard.whole()) {
      throw UserError(fmt::format(
          "'{}' is not a shard (a run without --shard, or a merge): nothing to merge it with",
          path.string()));
    }
    parts.push_back({path, std::move(file), shard});
  }
  return parts;
}

// Where two experiments' canonical forms first differ, as "cells[2].alpha:
// 0.9 against 0.5" (the JSON pointer of the first change, read as a path).
std::string first_difference(const nlohmann::json& first, const nlohmann::json& second) {
  const auto patch = nlohmann::json::diff(first, second);
  if (patch.empty()) return "they differ";
  const nlohmann::json::json_pointer at(patch.front().at("path").get<std::string>());
  std::string where;
  for (auto part = at; !part.empty(); part.pop_back()) {
    const auto& name = part.back();
    const bool index = !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
    where.insert(0, index ? "[" + name + "]" : (where.empty() ? "" : ".") + name);
  }
  if (where.empty()) return "they differ";
  const auto shown = [&](const nlohmann::json& j) {
    return j.contains(at) ? excerpt(j.at(at).dump(), 60) : std::string("absent");
  };
  return fmt::format("{}: {} against {}", where, shown(first), shown(second));
}

// The checks that hold whatever `partial` says, then the ones it waives.
void check_parts(const std::vector<Part>& parts, bool partial) {
  const auto& first = parts.front();
  const auto experiment = first.file->attribute("experiment_canonical");
  for (const auto& part : parts) {
    if (const auto other = part.file->attribute("experiment_canonical"); other != experiment) {
      throw UserError(fmt::format(
          "'{}' is a shard of another experiment than '{}' ({}; from {} and {}); merge the "
          "shards of one experiment",
          part.path.string(), first.path.string(),
          first_difference(nlohmann::json::parse(other), nlohmann::json::parse(experiment)),
          part.file->attribute("source"), first.file->attribute("source")));
    }
    if (part.shard.count != first.shard.count) {
      throw UserError(fmt::format(
          "'{}' is shard {} but '{}' is shard {}: shards of different splits do not fit together",
          part.path.string(), part.shard.text(), first.path.string(), first.shard.text()));
    }
  }
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].shard == parts[i - 1].shard) {
      throw UserError(fmt::format("'{}' and '{}' are both shard {}: overlapping shards",
                                  parts[i - 1].path.string(), parts[i].path.string(),
                                  parts[i].shard.text()));
    }
  }
  if (partial) return;
  std::vector<std::string> missing;
  auto next = parts.begin();
  for (std::uint64_t i = 0; i < first.shard.count; ++i) {
    if (next != parts.end() && next->shard.index == i) {
      ++next;
    } else {
      missing.push_back(fmt::format("{}", i));
    }
  }
  if (!missing.empty()) {
    throw UserError(fmt::format(
        "shard{} {} of {} {} missing (run {}, or merge with --partial to keep the replications "
        "present and record which they are)",
        missing.size() == 1 ? "" : "s", fmt::join(missing, ", "), first.shard.count,
        missing.size() == 1 ? "is" : "are", missing.size() == 1 ? "it" : "them"));
  }
  for (const auto& part : parts) {
    for (const auto& cell : part.file->cells()) {
      if (cell.done < cell.expected()) {
        throw UserError(fmt::format(
            "'{}' is incomplete: {} holds {} of its {} replications (rerun its command to finish "
            "it, or merge with --partial)",
            part.path.string(), cell.name, cell.done, cell.expected()));
      }
    }
  }
}

// Per cell, the replications the merge holds: each part's finished ones, in
// order, adjacent ranges joined.
std::vector<std::vector<sim::ReplicationRange>> merged_ranges(const std::vector<Part>& parts) {
  std::vector<std::vector<sim::ReplicationRange>> ranges(parts.front().file->cells().size());
  for (std::size_t c = 0; c < ranges.size(); ++c) {
    for (const auto& part : parts) {
      const auto& cell = part.file->cells()[c];
      const auto first = cell.ranges.front().first;
      const sim::ReplicationRange present{first, first + cell.done};
      if (present.count() == 0) continue;
      if (!ranges[c].empty() && ranges[c].back().end == present.first) {
        ranges[c].back().end = present.end;
      } else {
        ranges[c].push_back(present);
      }
    }
  }
  return ranges;
}

std::string provenance(const std::vector<Part>& parts) {
  std::string text;
  for (const auto& part : parts) {
    text += fmt::format("{}{}: {}", text.empty() ? "" : "\n", part.shard.text(),
                        std::filesystem::absolute(part.path).string());
  }
  return text;
}

}  // namespace

void merge_shards(std::span<const std::filesystem::path> paths,
                  const std::filesystem::path& output, bool partial, bool overwrite) {
  if (paths.empty()) throw UserError("no shards to merge (give the files of run --shard)");
  const auto target = check_output(output, paths);
  if (target.exists && !overwrite) {
    throw UserError(fmt::format(
        "output '{}' exists; use --overwrite to replace it, or choose another -o",
        output.string()));
  }
  auto parts = read_parts(paths);
  std::sort(parts.begin(), parts.end(),
            [](const Part& a, const Part& b) { return a.shard.index < b.shard.index; });
  check_parts(parts, partial);

  // The first shard's file, copied, is the start of the merge: its rows are
  // each cell's first.
  NewOutput merged(target);
  merged.copy_from(parts.front().path);
  {
    ResultsWriter writer(merged, merged_ranges(parts), provenance(parts));
    // cell by cell: the writer summarises one cell at a time
    for (std::size_t c = 0; c < parts.front().file->cells().size(); ++c) {
      for (std::size_t p = 1; p < parts.size(); ++p) {
        const auto& file = *parts[p].file;
        const auto done = file.cells()[c].done;
        // blocks that end on the output's chunk boundaries (ResultsWriter):
        // its chunks are the first shard's
        for (std::uint64_t first = 0; first < done;) {
          const auto count =
              std::min<std::uint64_t>(done - first, writer.rows_to_chunk_end(c, writer.done(c)));
          writer.append(file.rows(c, first, count));
          first += count;
        }
        // rows read back carry no time: the shard's total for the cell is
        // added (the first shard's came with its file, the merge's start)
        if (const auto& used = file.cells()[c].used) writer.add_time_used(c, *used);
      }
    }
    writer.write_summaries();
    writer.close();  // complete on disk
  }
  merged.commit();
}

}  // namespace pfmab::io
