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

  const std::string& text() const { return text_; }
  // The node of `key`, nullptr where the file does not give it.
  const toml::node* node(std::string_view key) const { return table_.at_path(key).node(); }
  // The values the file gives `parameter` (a list's elements where it
  // sweeps), each read as its type and checked; the file must give it.
  std::vector<Value> values(const Parameter& parameter) const;
  // Throws UserError about `key` placed at `node`.
  [[noreturn]] void fail(const toml::node& node, std::string_view key,
                         const std::string& problem) const;
  // Throws UserError about a key the file lacks, placed at its table if the
  // file has that table, else at the file.
  [[noreturn]] void fail_missing(std::string_view key, const std::string& problem) const;

 private:
  std::string shown_;               // the path, as messages quote it
  std::filesystem::path directory_;  // CSV paths are relative to it
  std::string text_;
  toml::table table_;
};

}  // namespace pfmab::io
