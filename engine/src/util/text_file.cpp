#include "pfmab/util/text_file.hpp"

#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "pfmab/util/error.hpp"

namespace pfmab {

std::string read_text_file(const std::filesystem::path& path, std::string_view what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw UserError(fmt::format("{} '{}' is a directory, not a file", what, path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UserError(fmt::format("cannot read {} '{}' (it does not exist or is not readable)", what,
                                path.string()));
  }
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace pfmab
