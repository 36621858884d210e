#include "tidesim/tools/lib/json_locate.hpp"

#include <charconv>
#include <cstddef>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tidesim::app {
namespace {

using json = nlohmann::json;

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

// A character iterator over the text that records how far nlohmann's parser has read, so that a
// SAX handler knows where each token ends.
class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator(const char* p, std::size_t* read) : p_(p), read_(read) {}
  reference operator*() const { return *p_; }
  CountingIterator& operator++() {
    ++p_;
    ++*read_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const CountingIterator& other) const { return p_ == other.p_; }

 private:
  const char* p_;
  std::size_t* read_;
};

// nlohmann's SAX events, following the path. A value begins at the first character after the
// previous event's token that is not white space or a separator (',' or ':'): the parser reads one
// token per event, and one character past a number.
class Locator {
 public:
  Locator(std::string_view text, std::vector<Step> steps, const std::size_t* read)
      : text_(text), steps_(std::move(steps)), read_(read) {}

  // The deepest value on the path that was found.
  std::size_t found() const { return found_; }

  bool null() { return scalar(); }
  bool boolean(bool /*v*/) { return scalar(); }
  bool number_integer(json::number_integer_t /*v*/) { return scalar(); }
  bool number_unsigned(json::number_unsigned_t /*v*/) { return scalar(); }
  bool number_float(json::number_float_t /*v*/, const json::string_t& /*s*/) { return scalar(); }
  bool string(json::string_t& /*v*/) { return scalar(); }
  bool binary(json::binary_t& /*v*/) { return scalar(); }
  bool start_object(std::size_t /*n*/) { return open(false); }
  bool start_array(std::size_t /*n*/) { return open(true); }
  bool key(json::string_t& k) {
    frames_.back().key = k;
    mark();
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t /*at*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*e*/) {
    return false;  // the text parsed before; nothing more to find
  }

 private:
  struct Frame {
    bool array = false;
    bool on_path = false;   // the container is the value at steps_[0, depth)
    std::size_t index = 0;  // of the next element
    std::string key;        // of the member whose value comes next
  };

  // The value beginning now: `on_path` when it is the value at the first frames_.size() steps of
  // the path, and then its start is recorded; false once it is the whole path's (nothing more to
  // find).
  bool begin_value(bool& on_path) {
    std::size_t start = after_;
    while (start < text_.size() &&
           (text_[start] == ' ' || text_[start] == '\t' || text_[start] == '\n' ||
            text_[start] == '\r' || text_[start] == ',' || text_[start] == ':')) {
      ++start;
    }
    on_path = frames_.empty();
    if (!frames_.empty()) {
      Frame& parent = frames_.back();
      const std::size_t depth = frames_.size();
      if (parent.on_path && depth <= steps_.size()) {
        const Step& step = steps_[depth - 1];
        on_path = step.index ? parent.array && parent.index == *step.index
                             : !parent.array && parent.key == step.key;
      }
      ++parent.index;
    }
    if (on_path) {
      found_ = start;
    }
    return !(on_path && frames_.size() == steps_.size());
  }
  void mark() { after_ = *read_; }
  bool scalar() {
    bool on_path = false;
    const bool more = begin_value(on_path);
    mark();
    return more;
  }
  bool open(bool array) {
    bool on_path = false;
    const bool more = begin_value(on_path);
    frames_.push_back(Frame{array, on_path, 0, {}});
    mark();
    return more;
  }
  bool close() {
    frames_.pop_back();
    mark();
    return true;
  }

  std::string_view text_;
  std::vector<Step> steps_;
  const std::size_t* read_;
  std::vector<Frame> frames_;
  std::size_t after_ = 0;
  std::size_t found_ = 0;
};

// nlohmann's SAX events, keeping the member names of each open object: the first name an object
// already has ends the walk, recording its path and where the name begins.
class RepeatedKeyFinder {
 public:
  RepeatedKeyFinder(std::string_view text, const std::size_t* read) : text_(text), read_(read) {}

  const std::optional<std::pair<std::string, std::size_t>>& repeated() const { return repeated_; }

  bool null() { return scalar(); }
  bool boolean(bool /*v*/) { return scalar(); }
  bool number_integer(json::number_integer_t /*v*/) { return scalar(); }
  bool number_unsigned(json::number_unsigned_t /*v*/) { return scalar(); }
  bool number_float(json::number_float_t /*v*/, const json::string_t& /*s*/) { return scalar(); }
  bool string(json::string_t& /*v*/) { return scalar(); }
  bool binary(json::binary_t& /*v*/) { return scalar(); }
  bool start_object(std::size_t /*n*/) { return open(false); }
  bool start_array(std::size_t /*n*/) { return open(true); }
  bool key(json::string_t& k) {
    Frame& object = frames_.back();
    std::size_t start = after_;
    while (start < text_.size() &&
           (text_[start] == ' ' || text_[start] == '\t' || text_[start] == '\n' ||
            text_[start] == '\r' || text_[start] == ',')) {
      ++start;
    }
    if (!object.keys.insert(k).second) {
      repeated_.emplace(object.path.empty() ? k : object.path + "." + k, start);
      return false;
    }
    object.key = k;
    mark();
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t /*at*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*e*/) {
    return false;  // the text parsed before; nothing more to find
  }

 private:
  struct Frame {
    bool array = false;
    std::string path;
    std::size_t index = 0;       // of the next element
    std::string key;             // of the member whose value comes next
    std::set<std::string> keys;  // the object's member names so far
  };

  // The path of the value beginning now.
  std::string next_path() {
    if (frames_.empty()) {
      return "";
    }
    Frame& parent = frames_.back();
    if (parent.array) {
      return parent.path + "[" + std::to_string(parent.index++) + "]";
    }
    return parent.path.empty() ? parent.key : parent.path + "." + parent.key;
  }
  void mark() { after_ = *read_; }
  bool scalar() {
    if (!frames_.empty() && frames_.back().array) {
      ++frames_.back().index;
    }
    mark();
    return true;
  }
  bool open(bool array) {
    frames_.push_back(Frame{array, next_path(), 0, {}, {}});
    mark();
    return true;
  }
  bool close() {
    frames_.pop_back();
    mark();
    return true;
  }

  std::string_view text_;
  const std::size_t* read_;
  std::vector<Frame> frames_;
  std::size_t after_ = 0;
  std::optional<std::pair<std::string, std::size_t>> repeated_;
};

}  // namespace

SourceLocation locate_json_value(std::string_view text, std::string_view path,
                                 const std::string& file) {
  std::size_t read = 0;
  Locator locator(text, steps_of(path), &read);
  json::sax_parse(CountingIterator(text.data(), &read),
                  CountingIterator(text.data() + text.size(), &read), &locator);
  return locate_json_offset(text, locator.found(), file);
}

std::optional<std::pair<std::string, SourceLocation>> find_repeated_json_key(
    std::string_view text, const std::string& file) {
  std::size_t read = 0;
  RepeatedKeyFinder finder(text, &read);
  json::sax_parse(CountingIterator(text.data(), &read),
                  CountingIterator(text.data() + text.size(), &read), &finder);
  if (!finder.repeated()) {
    return std::nullopt;
  }
  const auto& [path, offset] = *finder.repeated();
  return std::make_pair(path, locate_json_offset(text, offset, file));
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

std::string plain_json_message(std::string_view what) {
  if (what.starts_with("[json.exception.")) {
    const std::size_t close = what.find("] ");
    if (close != std::string_view::npos) {
      what.remove_prefix(close + 2);
    }
  }
  // "parse error at line L, column C: MSG" or "parse error at ...: MSG" or "parse error: MSG".
  if (what.starts_with("parse error")) {
    const std::size_t colon = what.find(": ");
    if (colon != std::string_view::npos) {
      what.remove_prefix(colon + 2);
    }
  }
  return std::string(what);
}

}  // namespace tidesim::app
