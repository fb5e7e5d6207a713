#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "pfmab/io/parameters.hpp"

namespace pfmab::io {

// An experiment file: its text read and parsed within the limits of
// toml_limits.hpp, every key checked against the parameters' (and the top
// level's name and description), and values read at the node they come
// from, so that every message begins "FILE:LINE:COL: key 'K': ".
class ExperimentFile {
 public:
  ExperimentFile() = default;  // none: every parameter from flags or defaults
  // Throws UserError for a file that cannot be read, breaks a limit, is not
  // TOML or holds a key no parameter has.
  explicit ExperimentFile(const std::filesystem::path& path);
  // The same for an experiment's text, named `shown` in messages, its CSV
  // paths relative to `directory`.
  ExperimentFile(std::string text, std::string shown, std::filesystem::path directory);

  const std::string& text() const { return text_; }
  // Its `skip_refused` (false if it has none): run the cells of the sweep
  // that are not refused, and record those that are (io::RefusedCell).
  bool skip_refused() const { return skip_refused_; }

  // A part of the sweep: the top level, or one of its [[sweep]] blocks, each
  // of which lays its keys over the top level's (docs/experiment.md).
  using Block = std::optional<std::size_t>;  // nullopt: the top level
  std::size_t blocks() const { return blocks_.size(); }
  // The node of `key` in `block`, nullptr where it does not give it.
  const toml::node* node(std::string_view key, Block block = {}) const {
    return table(block).at_path(key).node();
  }
  // The values `block` gives `parameter` (a list's elements where it
  // sweeps), each read as its type and checked; it must give it.
  std::vector<Value> values(const Parameter& parameter, Block block = {}) const;
  // The keys that `zip` pairs in `block` (each group's lists advance
  // together), checked to be keys that sweep, each in one group at most.
  struct ZipGroup {
    std::vector<std::string> keys;
    const toml::node* node;  // where it is given, for messages
  };
  std::vector<ZipGroup> zips(Block block = {}) const;
  // Throws UserError about `key` placed at `node`.
  [[noreturn]] void fail(const toml::node& node, std::string_view key,
                         const std::string& problem) const;
  // Throws UserError about a key the file lacks, placed at its table if the
  // file has that table, else at the file.
  [[noreturn]] void fail_missing(std::string_view key, const std::string& problem) const;

 private:
  const toml::table& table(Block block) const { return block ? *blocks_[*block] : table_; }

  std::string shown_;                // the path, as messages quote it
  std::filesystem::path directory_;  // CSV paths are relative to it
  std::string text_;
  toml::table table_;
  std::vector<const toml::table*> blocks_;  // in table_
  bool skip_refused_ = false;
};

}  // namespace pfmab::io
