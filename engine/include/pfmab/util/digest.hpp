#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

namespace pfmab {

// 64-bit FNV-1a over raw bytes: a fingerprint of results, equal exactly when
// the bytes fed to it are. Not cryptographic; it tells runs apart.
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
