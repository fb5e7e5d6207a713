#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

namespace pfmab {

// A 64-bit fingerprint of results, equal exactly when the bytes fed to it
// (in the same calls) are: FNV-1a over 64-bit words, each step followed by
// an xor-shift. Not cryptographic; it tells runs apart, at about a
// nanosecond per 8 bytes (FNV-1a byte by byte took 4 times as long, in the
// run's one serial stage).
class Digest {
 public:
  void add_bytes(const void* data, std::size_t size);

  template <class T>
  requires std::is_trivially_copyable_v<T>
  void add(std::span<const T> values) { add_bytes(values.data(), values.size_bytes()); }

  template <class T>
  requires std::is_trivially_copyable_v<T>
  void add(const T& value) { add_bytes(&value, sizeof value); }

  std::uint64_t value() const { return state_; }
  std::string hex() const;

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

}  // namespace pfmab
