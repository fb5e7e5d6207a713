#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pfmab {

// How much of a user's value, key or path a message quotes. A value is
// quoted to show which one is meant, not to reproduce it: 60 characters
// tell any real key or name apart. Paths get more room, since a temporary
// or cluster scratch path alone can be 100 characters and its end (the
// file's name) is what the user needs.
inline constexpr std::size_t excerpt_chars = 60;
inline constexpr std::size_t path_excerpt_chars = 240;
// A whole message, as the command line prints it: whatever the values it
// quotes (CLI11's messages quote flags' values in full), one line.
inline constexpr std::size_t message_chars = 1000;

// `text` made safe to print inside a one-line message: at most `max_chars`
// characters, then "..." if it was cut; newline, carriage return and tab as
// \n, \r and \t, every other control byte (C0, DEL) and every byte that is
// not part of valid UTF-8 as \xNN, and the C1 controls and the Unicode line
// and paragraph separators as \uNNNN, so that a terminal neither breaks the
// line nor interprets an escape sequence. Printable ASCII and valid UTF-8
// pass unchanged, so an excerpt of an excerpt is the same text.
std::string excerpt(std::string_view text, std::size_t max_chars = excerpt_chars);

}  // namespace pfmab
