#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace pfmab {

// The whole text of a file the user named, at most `max_bytes` long. Throws
// UserError naming it as `what` (e.g. "means file") if it is a directory,
// missing or unreadable, or longer than that (also a device or a pipe that
// never ends, such as /dev/zero).
std::string read_text_file(const std::filesystem::path& path, std::string_view what,
                           std::size_t max_bytes);

}  // namespace pfmab
