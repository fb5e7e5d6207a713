#include "pfmab/util/digest.hpp"

#include <cstring>

#include <fmt/format.h>

namespace pfmab {
namespace {

// One step per 64-bit word: FNV-1a's xor and multiply, then an xor-shift so
// that high bits reach the low ones too (each step is a bijection of the
// state, so results that differ in one word always differ).
std::uint64_t mix(std::uint64_t state, std::uint64_t word) {
  constexpr std::uint64_t prime = 0x100000001b3ULL;
  state = (state ^ word) * prime;
  return state ^ (state >> 29);
}

}  // namespace

void Digest::add_bytes(const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (; size >= sizeof(std::uint64_t);
       bytes += sizeof(std::uint64_t), size -= sizeof(std::uint64_t)) {
    std::uint64_t word;
    std::memcpy(&word, bytes, sizeof word);
    state_ = mix(state_, word);
  }
  if (size > 0) {  // the tail, zero-padded and tagged with its length
    std::uint64_t word = 0;
    std::memcpy(&word, bytes, size);
    state_ = mix(state_, word ^ (std::uint64_t{size} << 56));
  }
}

std::string Digest::hex() const { return fmt::format("{:016x}", state_); }

}  // namespace pfmab
