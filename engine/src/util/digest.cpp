#include "pfmab/util/digest.hpp"

#include <fmt/format.h>

namespace pfmab {

void Digest::add_bytes(const void* data, std::size_t size) {
  constexpr std::uint64_t prime = 0x100000001b3ULL;
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    state_ = (state_ ^ bytes[i]) * prime;
  }
}

std::string Digest::hex() const { return fmt::format("{:016x}", state_); }

}  // namespace pfmab
