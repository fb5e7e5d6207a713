#include "io/toml_limits.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "pfmab/util/error.hpp"
#include "pfmab/util/excerpt.hpp"

namespace pfmab::io {
namespace {

constexpr auto npos = std::string_view::npos;

// One pass over the text that tells keys, table headers, strings, comments
// and the brackets of lists and inline tables apart -- as much of TOML's
// grammar as the limits need, no more. Wherever the text is not TOML it
// just goes on: toml++ reports the error afterwards.
class LimitScanner {
 public:
  LimitScanner(std::string_view text, std::string_view file) : text_(text), file_(file) {}

  void run() {
    if (text_.starts_with("\xEF\xBB\xBF")) i_ = 3;  // a UTF-8 byte order mark
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '#') {
        skip_comment();
      } else if (c == '"' || c == '\'') {
        if (in_key_) {
          start_key();
          skip_string(max_toml_key_bytes);
        } else {
          skip_string(max_toml_string_bytes);
        }
      } else if (in_key_) {
        key_character(c);
      } else {
        value_character(c);
      }
    }
  }

 private:
  // A list ('[') or inline table ('{') being read, and its depth.
  struct Level {
    char open;
    std::size_t depth;
  };

  // One character where a key is expected: at the start of a top-level line
  // or after '{' or ',' in an inline table.
  void key_character(char c) {
    switch (c) {
      case ' ':
      case '\t':
      case '\r':
        break;
      case '\n':
        if (levels_.empty()) reset_key();
        break;
      case '[':
        if (levels_.empty() && key_begin_ == npos) return table_header();
        start_key();
        break;
      case '.':
        start_key();
        ++key_dots_;
        check_depth(key_base() + key_dots_ + 1, key_begin_);
        break;
      case '=':
        key_ = key_text(i_);
        if (key_.size() > max_toml_key_bytes) fail_key_too_long(key_begin_);
        value_depth_ = key_base() + key_dots_ + 1;
        check_depth(value_depth_, key_begin_);
        in_key_ = false;
        break;
      case '}':  // an empty inline table
        if (!levels_.empty() && levels_.back().open == '{') close_level();
        break;
      default:
        start_key();
    }
    ++i_;
  }

  // One character of a value: only brackets, commas and line ends matter.
  void value_character(char c) {
    switch (c) {
      case '\n':
        if (levels_.empty()) {
          in_key_ = true;
          reset_key();
        }
        break;
      case '[':
        check_depth(value_depth_ + 1, i_);
        levels_.push_back({'[', value_depth_});
        ++value_depth_;
        break;
      case '{':
        levels_.push_back({'{', value_depth_});
        in_key_ = true;
        reset_key();
        break;
      case ']':
      case '}':
        if (!levels_.empty() && levels_.back().open == (c == ']' ? '[' : '{')) close_level();
        break;
      case ',':
        if (!levels_.empty() && levels_.back().open == '{') {
          in_key_ = true;
          reset_key();
        } else if (!levels_.empty()) {
          value_depth_ = levels_.back().depth + 1;
        }
        break;
      default:
        break;
    }
    ++i_;
  }

  // [a.b.c] or [[a.b.c]], from its first '[' to the end of its last ']'.
  void table_header() {
    const auto begin = i_;
    const bool array_of_tables = text_.substr(i_).starts_with("[[");
    i_ += array_of_tables ? 2 : 1;
    const auto name = i_;
    table_ = {};  // the header names itself in full
    // the tables of an array of tables are one level below the array
    table_depth_ = array_of_tables ? 2 : 1;
    while (i_ < text_.size() && text_[i_] != ']' && text_[i_] != '\n') {
      if (text_[i_] == '"' || text_[i_] == '\'') {
        skip_string(max_toml_key_bytes);
        continue;
      }
      if (text_[i_] == '.') {
        key_ = text_.substr(name, i_ - name);
        check_depth(++table_depth_, begin);
      }
      ++i_;
      if (i_ - begin > max_toml_key_bytes) fail_key_too_long(begin);
    }
    key_ = table_ = text_.substr(name, i_ - name);
    while (i_ < text_.size() && text_[i_] == ']') ++i_;
    reset_key();
  }

  // A string from its opening quote to after its closing one (or the end
  // of its line, if it has none: toml++ reports that).
  void skip_string(std::size_t limit) {
    const auto begin = i_;
    const char quote = text_[i_];
    const bool multi_line = text_.substr(i_, 3) == std::string(3, quote);
    i_ += multi_line ? 3 : 1;
    const auto content = i_;
    while (i_ < text_.size()) {
      if (i_ - content > limit) fail_string_too_long(begin, limit);
      const char c = text_[i_];
      if (c == '\\' && quote == '"') {
        i_ += 2;
      } else if (c == '\n' && !multi_line) {
        return;
      } else if (c == quote && !multi_line) {
        ++i_;
        return;
      } else if (c == quote && text_.substr(i_, 3) == std::string(3, quote)) {
        // """ ends it, and up to two more quotes before it belong to it
        while (i_ < text_.size() && text_[i_] == quote) ++i_;
        return;
      } else {
        ++i_;
      }
    }
  }

  void skip_comment() {
    const auto end = text_.find('\n', i_);
    i_ = end == npos ? text_.size() : end;
  }

  void start_key() {
    if (key_begin_ == npos) key_begin_ = i_;
  }

  void reset_key() {
    key_begin_ = npos;
    key_dots_ = 0;
  }

  // The depth of the table a key in the current place is read into.
  std::size_t key_base() const { return levels_.empty() ? table_depth_ : levels_.back().depth; }

  void close_level() {
    value_depth_ = levels_.back().depth;
    levels_.pop_back();
    in_key_ = false;  // what follows is ',' or the container's end
  }

  // The key being read, from its first character to `end`, spaces trimmed.
  std::string_view key_text(std::size_t end) const {
    if (key_begin_ == npos) return {};
    auto key = text_.substr(key_begin_, end - key_begin_);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.remove_suffix(1);
    return key;
  }

  void check_depth(std::size_t depth, std::size_t at) const {
    if (depth <= max_toml_depth) return;
    const auto key = key_begin_ != npos && in_key_ ? key_text(i_) : key_;
    fail(at, key,
         fmt::format("nested more than {} levels deep (each part of a dotted key or table header, "
                     "each list and each inline table is a level; an experiment needs at most 5)",
                     max_toml_depth));
  }

  [[noreturn]] void fail_key_too_long(std::size_t begin) const {
    fail(begin, {},
         fmt::format("the key '{}' is longer than {} bytes (the format's keys are at most 29)",
                     excerpt(text_.substr(begin, max_toml_key_bytes)), max_toml_key_bytes));
  }

  [[noreturn]] void fail_string_too_long(std::size_t begin, std::size_t limit) const {
    if (limit == max_toml_key_bytes) fail_key_too_long(begin);
    fail(begin, key_,
         fmt::format("a string longer than {} KiB (the limit for any string in an experiment "
                     "file): {}",
                     limit >> 10, excerpt(text_.substr(begin, limit))));
  }

  // "FILE:LINE:COL: key 'K': problem", the column counted in characters.
  [[noreturn]] void fail(std::size_t at, std::string_view key, const std::string& problem) const {
    const auto before = text_.substr(0, at);
    std::size_t line = 1;
    for (const char c : before) line += c == '\n';
    const auto line_start = before.rfind('\n') == npos ? 0 : before.rfind('\n') + 1;
    std::size_t column = 1;
    for (const char c : before.substr(line_start)) column += (c & 0xC0) != 0x80;
    // a key in a [table] as the other messages name it: "table.key"
    const auto full = table_.empty() ? std::string(key) : fmt::format("{}.{}", table_, key);
    const auto quoted = key.empty() ? std::string() : fmt::format("key '{}': ", excerpt(full));
    throw UserError(fmt::format("{}:{}:{}: {}{}", file_, line, column, quoted, problem));
  }

  std::string_view text_;
  std::string_view file_;
  std::size_t i_ = 0;
  bool in_key_ = true;
  std::size_t key_begin_ = npos;  // where the key being read starts
  std::size_t key_dots_ = 0;
  std::string_view key_;         // the last key or header read, for messages
  std::string_view table_;       // the last [table]'s name
  std::size_t table_depth_ = 0;  // the depth of the last [table]
  std::size_t value_depth_ = 0;  // the depth of the value being read
  std::vector<Level> levels_;
};

}  // namespace

void check_toml_limits(std::string_view text, std::string_view shown_file) {
  LimitScanner(text, shown_file).run();
}

}  // namespace pfmab::io
