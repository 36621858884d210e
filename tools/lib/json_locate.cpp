#include "tidesim/tools/lib/json_locate.hpp"

#include <charconv>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace tidesim::app {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  std::size_t pos() const { return pos_; }
  void seek(std::size_t p) { pos_ = p; }
  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool done() const { return pos_ >= text_.size(); }

  void skip_space() {
    while (pos_ < text_.size() && is_space(text_[pos_])) {
      ++pos_;
    }
  }
  // At '"': the string's content (escapes other than \" and \\ kept as written), past its end.
  std::string string() {
    std::string out;
    ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) {
        const char next = text_[pos_ + 1];
        if (next == '"' || next == '\\' || next == '/') {
          out += next;
          pos_ += 2;
          continue;
        }
        out += text_[pos_++];
      }
      out += text_[pos_++];
    }
    ++pos_;  // the closing quote
    return out;
  }
  // Past one value (no recursion: nesting is counted).
  void skip_value() {
    int depth = 0;
    do {
      skip_space();
      if (done()) {
        return;
      }
      const char c = text_[pos_];
      if (c == '"') {
        (void)string();
      } else if (c == '{' || c == '[') {
        ++depth;
        ++pos_;
      } else if (c == '}' || c == ']') {
        --depth;
        ++pos_;
      } else if (c == ',' || c == ':') {
        ++pos_;
      } else {
        while (pos_ < text_.size() && !is_space(text_[pos_]) && text_[pos_] != ',' &&
               text_[pos_] != '}' && text_[pos_] != ']') {
          ++pos_;
        }
      }
    } while (depth > 0);
  }
  // At an object member's or array element's value: past it and the ',' after it; false at the
  // container's end (or broken text).
  bool next_item() {
    skip_value();
    skip_space();
    if (!at(',')) {
      return false;
    }
    ++pos_;
    return true;
  }
  // At '{': moves to the value of member `key` and returns true, or returns false.
  bool member(const std::string& key) {
    ++pos_;
    for (;;) {
      skip_space();
      if (!at('"')) {
        return false;  // '}' or broken text
      }
      const std::string name = string();
      skip_space();
      if (!at(':')) {
        return false;
      }
      ++pos_;
      skip_space();
      if (name == key) {
        return true;
      }
      if (!next_item()) {
        return false;
      }
    }
  }
  // At '[': moves to element `index` and returns true, or returns false.
  bool element(std::size_t index) {
    ++pos_;
    for (std::size_t i = 0;; ++i) {
      skip_space();
      if (done() || at(']')) {
        return false;
      }
      if (i == index) {
        return true;
      }
      if (!next_item()) {
        return false;
      }
    }
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

// "a.b[2].c" as steps: a member name, or an index.
struct Step {
  std::string key;
  std::optional<std::size_t> index;
};

std::vector<Step> steps_of(std::string_view path) {
  std::vector<Step> out;
  std::string key;
  const auto flush = [&] {
    if (!key.empty()) {
      out.push_back({key, std::nullopt});
      key.clear();
    }
  };
  for (std::size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '.') {
      flush();
    } else if (c == '[') {
      const std::size_t close = path.find(']', i);
      std::size_t index = 0;
      const auto digits = path.substr(i + 1, close == std::string_view::npos ? 0 : close - i - 1);
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
      if (close == std::string_view::npos || ec != std::errc() ||
          end != digits.data() + digits.size()) {
        key += c;  // not an index: part of a name
        continue;
      }
      flush();
      out.push_back({"", index});
      i = close;
    } else {
      key += c;
    }
  }
  flush();
  return out;
}

}  // namespace

SourceLocation locate_json_value(std::string_view text, std::string_view path,
                                 const std::string& file) {
  Scanner s(text);
  s.skip_space();
  std::size_t found = s.pos();
  for (const Step& step : steps_of(path)) {
    const bool ok =
        step.index ? s.at('[') && s.element(*step.index) : s.at('{') && s.member(step.key);
    if (!ok) {
      break;
    }
    found = s.pos();
  }
  return locate_json_offset(text, found, file);
}

SourceLocation locate_json_offset(std::string_view text, std::size_t offset,
                                  const std::string& file) {
  SourceLocation where{file, 1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++where.line;
      where.column = 1;
    } else {
      ++where.column;
    }
  }
  return where;
}

}  // namespace tidesim::app
