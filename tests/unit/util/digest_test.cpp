#include "pfmab/util/digest.hpp"

#include <cstdint>
#include <set>
#include <vector>

#include <gtest/gtest.h>

namespace pfmab {
namespace {

std::uint64_t digest_of(const std::vector<unsigned char>& bytes) {
  Digest d;
  d.add_bytes(bytes.data(), bytes.size());
  return d.value();
}

TEST(Digest, EqualBytesGiveEqualDigests) {
  const std::vector<double> a{1.5, -2.25, 1e300};
  Digest x, y;
  x.add<double>(a);
  y.add<double>(std::vector<double>(a));
  EXPECT_EQ(x.value(), y.value());
  EXPECT_EQ(x.hex().size(), 16u);
}

// Every single-bit change, at every place of words and of a tail, changes
// the digest, and no two changes give the same one: the high bits of a word
// reach the state's low bits too.
TEST(Digest, EverySingleBitChangeGivesADifferentDigest) {
  for (const std::size_t size : {1, 3, 8, 13, 24}) {
    std::vector<unsigned char> bytes(size);
    for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<unsigned char>(37 * i + 11);
    std::set<std::uint64_t> seen{digest_of(bytes)};
    for (std::size_t bit = 0; bit < 8 * size; ++bit) {
      auto changed = bytes;
      changed[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
      EXPECT_TRUE(seen.insert(digest_of(changed)).second) << "size " << size << ", bit " << bit;
    }
  }
}

// Tails of different lengths are told apart even when their bytes are zero.
TEST(Digest, ZeroTailsOfDifferentLengthsDiffer) {
  std::set<std::uint64_t> seen;
  for (std::size_t size = 0; size <= 16; ++size) {
    EXPECT_TRUE(seen.insert(digest_of(std::vector<unsigned char>(size, 0))).second) << size;
  }
}

}  // namespace
}  // namespace pfmab
