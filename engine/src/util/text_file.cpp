#include "pfmab/util/text_file.hpp"

#include <array>
#include <fstream>

#include <fmt/format.h>

#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"

namespace pfmab {

std::string read_text_file(const std::filesystem::path& path, std::string_view what,
                           std::size_t max_bytes) {
  const auto shown = excerpt(path.string(), path_excerpt_chars);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw UserError(fmt::format("{} '{}' is a directory, not a file", what, shown));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UserError(
        fmt::format("cannot read {} '{}' (it does not exist or is not readable)", what, shown));
  }
  // In chunks, so that the size of a file that has none (a pipe, a device)
  // is found out by reading at most one chunk past the limit.
  std::string text;
  std::array<char, 1 << 16> chunk;
  while (in) {
    in.read(chunk.data(), chunk.size());
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) {
      throw UserError(fmt::format("{} '{}' is larger than {} MiB, the limit for a {}", what, shown,
                                  max_bytes >> 20, what));
    }
  }
  if (in.bad()) throw UserError(fmt::format("cannot read {} '{}' (a read error)", what, shown));
  return text;
}

}  // namespace pfmab
