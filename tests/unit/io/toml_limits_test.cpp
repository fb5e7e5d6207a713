#include "io/toml_limits.hpp"

#include <string>

#include <gtest/gtest.h>

#include "pfmab/util/error.hpp"

namespace pfmab::io {
namespace {

// The message check_toml_limits throws for `text`, or "" if it accepts it.
std::string refusal(const std::string& text) {
  try {
    check_toml_limits(text, "exp.toml");
    return {};
  } catch (const UserError& e) {
    return e.what();
  }
}

std::string repeated(const std::string& part, std::size_t n, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += (i ? separator : "") + part;
  return out;
}

// A value `depth` levels deep, written four ways.
std::string dotted_key(std::size_t depth) { return repeated("a", depth, ".") + " = 1\n"; }
std::string table_header(std::size_t depth) { return "[" + repeated("a", depth, ".") + "]\n"; }
std::string nested_lists(std::size_t depth) {
  return "x = " + std::string(depth - 1, '[') + "1" + std::string(depth - 1, ']') + "\n";
}
std::string nested_tables(std::size_t depth) {
  return "x = " + repeated("{ a = ", depth - 1, "") + "1" + std::string(depth - 1, '}') + "\n";
}

TEST(TomlLimits, AcceptsWhatAnExperimentWrites) {
  const std::string experiment =
      "\xEF\xBB\xBF# a comment [with [brackets {\r\n"
      "name = \"fig. 1 [a] {b} #c\" # trailing\r\n"
      "description = '''\nmany\n[lines] a.b.c.d\n'''\n"
      "notes = \"\"\"quote \\\"\"\" inside\"\"\"\"\n"
      "alpha = [0.0, 0.2,\n  0.5, # half\n  1.0]\n"
      "[instance]\n"
      "means = [[[0.1, 0.2], [0.3, 0.4]], [[1.5e-3, 2], [3, 4]]]\n"
      "\"quoted.key\".b = { c = [], d = {}, e.f = \"]}\" }\n"
      "[[runs]]\nseed = 1979-05-27T07:32:00Z\n";
  EXPECT_EQ(refusal(experiment), "");
}

TEST(TomlLimits, AcceptsThirtyTwoLevelsOfEachKind) {
  for (const auto& text : {dotted_key(32), table_header(32), nested_lists(32), nested_tables(32)}) {
    EXPECT_EQ(refusal(text), "") << text;
  }
  // the kinds add up: 30 in the header and key, 2 lists
  EXPECT_EQ(refusal("[" + repeated("t", 20, ".") + "]\n" + repeated("k", 10, ".") + " = [[1]]\n"),
            "");
}

TEST(TomlLimits, RefusesThirtyThreeLevelsOfEachKindAtTheirPlace) {
  const auto deep = "nested more than 32 levels deep";
  const auto key = refusal("seed = 1\n" + dotted_key(33));
  EXPECT_EQ(key.rfind("exp.toml:2:1: key 'a.a.a.a.a.a", 0), 0u) << key;
  EXPECT_NE(key.find(deep), std::string::npos) << key;
  const auto header = refusal(table_header(33));
  EXPECT_EQ(header.rfind("exp.toml:1:1: key 'a.a.a", 0), 0u) << header;
  const auto lists = refusal("seed = 1\n\n" + nested_lists(33));
  EXPECT_EQ(lists.rfind("exp.toml:3:36: key 'x': " + std::string(deep), 0), 0u) << lists;
  const auto tables = refusal(nested_tables(33));
  EXPECT_EQ(tables.rfind("exp.toml:1:", 0), 0u) << tables;
  EXPECT_NE(tables.find("key 'a': " + std::string(deep)), std::string::npos) << tables;
  // and the kinds add up
  EXPECT_NE(refusal("[" + repeated("t", 20, ".") + "]\n" + repeated("k", 10, ".") + " = [[[1]]]\n")
                .find(deep),
            std::string::npos);
}

TEST(TomlLimits, RefusesFiftyThousandLevelsQuicklyAndShortly) {
  for (const auto& text :
       {dotted_key(50'000), table_header(50'000), nested_lists(50'000), nested_tables(50'000)}) {
    const auto message = refusal(text);
    EXPECT_NE(message.find("nested more than 32 levels deep"), std::string::npos) << message;
    EXPECT_LT(message.size(), 300u) << message;
  }
}

TEST(TomlLimits, ClosedListsAndTablesGiveTheirLevelsBack) {
  // 100 lists in a row, each 2 deep
  EXPECT_EQ(refusal("x = [" + repeated("[1]", 100, ", ") + "]\n"), "");
  EXPECT_EQ(refusal("x = [" + repeated("{a = [1]}", 100, ", ") + "]\n"), "");
  EXPECT_EQ(refusal("x = [[[1]]]\n" + repeated("[t]\ny = {a = {b = 1}}", 50, "\n") + "\n"), "");
}

TEST(TomlLimits, BracketsInStringsAndCommentsDoNotCount) {
  EXPECT_EQ(refusal("x = \"" + std::string(1000, '[') + "\"\n"), "");
  EXPECT_EQ(refusal("x = '" + std::string(1000, '{') + "'\n"), "");
  EXPECT_EQ(refusal("# " + std::string(1000, '[') + "\nx = 1\n"), "");
  EXPECT_EQ(refusal("x = \"\"\"\n" + repeated("a", 1000, ".") + "\n\"\"\"\n"), "");
  EXPECT_EQ(refusal("\"" + repeated("a", 500, ".") + "\" = 1\n"), "");  // 999 bytes
}

TEST(TomlLimits, StringsUpTo64KiB) {
  EXPECT_EQ(refusal("name = \"" + std::string(64 << 10, 'x') + "\"\n"), "");
  const auto message = refusal("seed = 1\nname = \"" + std::string((64 << 10) + 1, 'x') + "\"\n");
  EXPECT_EQ(message.rfind("exp.toml:2:8: key 'name': a string longer than 64 KiB", 0), 0u)
      << message;
  EXPECT_LT(message.size(), 250u) << message;
  // unterminated, multi-line and literal strings alike
  EXPECT_NE(refusal("name = \"" + std::string(10'000'000, 'x')), "");
  EXPECT_NE(refusal("name = '''" + std::string(100'000, '\n')), "");
  EXPECT_NE(refusal("name = '" + std::string(100'000, 'x') + "'\n"), "");
}

TEST(TomlLimits, KeysUpTo1KiB) {
  EXPECT_EQ(refusal(std::string(1024, 'k') + " = 1\n"), "");
  for (const auto& key : {std::string(1025, 'k'), "\"" + std::string(2000, 'k') + "\"",
                          "[" + std::string(5000, 'k') + "]"}) {
    const auto message = refusal("seed = 1\n" + key + " = 1\n");
    EXPECT_EQ(message.rfind("exp.toml:2:1: the key '", 0), 0u) << message.substr(0, 300);
    EXPECT_NE(message.find("longer than 1024 bytes"), std::string::npos) << message.substr(0, 300);
    EXPECT_LT(message.size(), 250u);
  }
}

TEST(TomlLimits, ColumnsCountCharactersNotBytes) {
  // the 32nd '[' is the 45th character of line 2, its 46th byte
  const auto text = refusal("\xc3\xa9 = 1\nz = '\xc3\xa9', w = " + std::string(40, '[') + "\n");
  EXPECT_EQ(text.rfind("exp.toml:2:45:", 0), 0u) << text;
}

}  // namespace
}  // namespace pfmab::io
