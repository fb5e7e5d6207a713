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
  const auto type = std::filesystem::status(path, ec).type();
  if (type != std::filesystem::file_type::regular &&
      type != std::filesystem::file_type::not_found && type != std::filesystem::file_type::none) {
    throw UserError(fmt::format("{} '{}' is {}, not a regular file", what, shown, kind_of(type)));
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
  constexpr std::string_view byte_order_mark = "\xEF\xBB\xBF";
  if (text.starts_with(byte_order_mark)) text.erase(0, byte_order_mark.size());
  return text;
}

std::string kind_of(std::filesystem::file_type type) {
  switch (type) {
    case std::filesystem::file_type::directory:
      return "a directory";
    case std::filesystem::file_type::character:
      return "a character device";
    case std::filesystem::file_type::block:
      return "a block device";
    case std::filesystem::file_type::fifo:
      return "a FIFO (named pipe)";
    case std::filesystem::file_type::socket:
      return "a socket";
    default:
      return "not a regular file";
  }
}

}  // namespace pfmab
