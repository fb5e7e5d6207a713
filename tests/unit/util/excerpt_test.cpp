#include "pfmab/util/excerpt.hpp"

#include <string>

#include <gtest/gtest.h>

namespace pfmab {
namespace {

TEST(Excerpt, PrintableAsciiAndUtf8PassUnchanged) {
  EXPECT_EQ(excerpt("doubling-log"), "doubling-log");
  EXPECT_EQ(excerpt("a\\x01 'quoted' \"x\""), "a\\x01 'quoted' \"x\"");
  EXPECT_EQ(excerpt("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(excerpt(""), "");
}

TEST(Excerpt, LineBreaksAndControlBytesAreEscaped) {
  EXPECT_EQ(excerpt("a\nb\r\tc"), "a\\nb\\r\\tc");
  EXPECT_EQ(excerpt(std::string("x\0y", 3)), "x\\x00y");
  EXPECT_EQ(excerpt("\x1b[31mred\x7f"), "\\x1b[31mred\\x7f");
}

TEST(Excerpt, InvalidUtf8IsEscapedBytewise) {
  EXPECT_EQ(excerpt("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(excerpt("a\xc3"), "a\\xc3");                           // truncated sequence
  EXPECT_EQ(excerpt("\x80z"), "\\x80z");                           // stray continuation byte
  EXPECT_EQ(excerpt("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(excerpt("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(excerpt("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
}

TEST(Excerpt, TerminalControlsAndLineSeparatorsAreEscaped) {
  EXPECT_EQ(excerpt("\xc2\x9b"
                    "2J"),
            "\\u009b2J");  // C1 CSI
  EXPECT_EQ(excerpt("a\xe2\x80\xa8"
                    "b"),
            "a\\u2028b");
}

// Invisible characters that would reorder or hide a message's text: a
// right-to-left override shows "evil\u202Evsc.csv" as "evilcsv.exe".
TEST(Excerpt, BidirectionalAndZeroWidthCharactersAreEscaped) {
  EXPECT_EQ(excerpt("evil\u202Evsc.csv"), "evil\\u202evsc.csv");
  EXPECT_EQ(excerpt("a\u2066b\u2069c"), "a\\u2066b\\u2069c");   // isolates
  EXPECT_EQ(excerpt("a\u200Bb\u200Fc"), "a\\u200bb\\u200fc");   // zero width, RLM
  EXPECT_EQ(excerpt("\uFEFFx\u061C"), "\\ufeffx\\u061c");       // byte-order mark, ALM
  EXPECT_EQ(excerpt("\u2010\u2030"), "\u2010\u2030");           // neighbours shown as they are
}

TEST(Excerpt, LongTextIsCutWithAnEllipsis) {
  const std::string long_value(10'000'000, 'x');
  EXPECT_EQ(excerpt(long_value), std::string(60, 'x') + "...");
  EXPECT_EQ(excerpt(std::string(60, 'y')), std::string(60, 'y'));
  EXPECT_EQ(excerpt("abcdef", 4), "abcd...");
  // an escape is never split: it counts as its length
  EXPECT_EQ(excerpt("abc\x01", 5), "abc...");
  EXPECT_EQ(excerpt(std::string(100, '\0')).size(), 15 * 4 + 3);
}

TEST(Excerpt, AnExcerptOfAnExcerptIsTheSame) {
  const std::string hostile = "k\ney\x01\xff\xc2\x85 \xe2\x80\xa9 end";
  const auto once = excerpt(hostile, 1000);
  EXPECT_EQ(excerpt(once, 1000), once);
}

}  // namespace
}  // namespace pfmab
