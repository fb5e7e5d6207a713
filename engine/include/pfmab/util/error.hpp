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

}  // namespace pfmab
