#pragma once

#include <string_view>

namespace pfmab::io {

// How messages name the options of a run that are not experiment keys, so
// that each user reads what they give: the command line's flags by default,
// the Python package's keywords from python/src/module.cpp ("use
// overwrite=True to replace it, or choose another output"). The names are
// string literals, which live as long as the program.
struct OptionNames {
  std::string_view output = "-o";              // "... or choose another -o"
  std::string_view overwrite = "--overwrite";  // "use --overwrite to replace it"
  std::string_view shard = "--shard";          // "--shard '3/2' is not I/N ..."
};

}  // namespace pfmab::io
