#pragma once

#include <stdexcept>

namespace pfmab {

// A mistake in what the user asked for: a flag, a config value, a data file.
// The command line prints its message on one line and exits with status 2;
// every other exception is an internal error (status 1).
class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The system failed a request that was right (a full disk, a file-size
// limit, an I/O error): neither the user's mistake nor pfmab's. The command
// line prints its message, which names the file and the cause, on one line
// and exits with status 1.
class SystemError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pfmab
