#include "pfmab/util/excerpt.hpp"

#include <cstdint>

#include <fmt/format.h>

namespace pfmab {
namespace {

// The length of the valid UTF-8 sequence at the start of `text` (1 to 4)
// and its code point, or 0 if it is not one: truncated, a stray
// continuation byte, an overlong form, a surrogate or beyond U+10FFFF.
std::size_t utf8_sequence(std::string_view text, char32_t& code_point) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  char32_t minimum = 0;
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, minimum = 0x80, code_point = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, minimum = 0x800, code_point = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, minimum = 0x10000, code_point = lead & 0x07;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i) & 0x3F);
  }
  const bool surrogate = code_point >= 0xD800 && code_point <= 0xDFFF;
  if (code_point < minimum || surrogate || code_point > 0x10FFFF) return 0;
  return length;
}

// How a code point is shown: "" when as itself.
std::string escape_of(char32_t c) {
  switch (c) {
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      break;
  }
  if (c < 0x20 || c == 0x7F) return fmt::format("\\x{:02x}", static_cast<unsigned>(c));
  // C1 controls, line and paragraph separators, and the invisible format
  // characters that would reorder or hide a message's text: zero-width
  // ones, the bidirectional marks, embeddings, overrides and isolates
  // (U+202E would show a path backwards), the byte-order mark.
  const bool invisible = (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) ||
                         (c >= 0x2066 && c <= 0x2069) || c == 0x061C || c == 0xFEFF;
  if ((c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029 || invisible) {
    return fmt::format("\\u{:04x}", static_cast<std::uint32_t>(c));
  }
  return {};
}

}  // namespace

std::string excerpt(std::string_view text, std::size_t max_chars) {
  std::string out;
  std::size_t chars = 0;  // characters in `out`, an escape counting as its length
  while (!text.empty()) {
    char32_t c = 0;
    const auto length = utf8_sequence(text, c);
    std::string piece =
        length == 0 ? fmt::format("\\x{:02x}", static_cast<unsigned char>(text[0])) : escape_of(c);
    const std::size_t width = piece.empty() ? 1 : piece.size();
    if (chars + width > max_chars) return out + "...";
    if (piece.empty()) piece = text.substr(0, length);
    out += piece;
    chars += width;
    text.remove_prefix(length == 0 ? 1 : length);
  }
  return out;
}

}  // namespace pfmab
