#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace pfmab {

// The whole text of a file the user named. Throws UserError naming it as
// `what` (e.g. "means file") if it is a directory, missing or unreadable.
std::string read_text_file(const std::filesystem::path& path, std::string_view what);

}  // namespace pfmab
