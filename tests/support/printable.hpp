#pragma once

#include <string_view>

#include "pfmab/util/excerpt.hpp"

namespace pfmab::testing {

// Whether `text` prints as it is: no control byte (a newline included) and
// nothing but valid UTF-8 -- exactly the text pfmab::excerpt leaves unchanged.
inline bool printable(std::string_view text) { return pfmab::excerpt(text, text.size()) == text; }

}  // namespace pfmab::testing
