#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace pfmab {

// The whole text of a file the user named, at most `max_bytes` long, without
// a UTF-8 byte-order mark (which some editors write first). Throws UserError
// naming it as `what` (e.g. "means file") if it is missing or unreadable,
// not a regular file (a directory; a FIFO, whose open would wait for a
// writer for ever; a device such as /dev/zero, which never ends), or longer
// than that.
std::string read_text_file(const std::filesystem::path& path, std::string_view what,
                           std::size_t max_bytes);

// "a directory", "a FIFO (named pipe)", ...: what a file that is not a
// regular one is, for messages.
std::string kind_of(std::filesystem::file_type type);

}  // namespace pfmab
