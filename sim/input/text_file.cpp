#include "tidesim/sim/input/text_file.hpp"

#include <fmt/core.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "tidesim/sim/input/error.hpp"

namespace tidesim {

namespace {

// The length of the UTF-8 sequence that starts at text[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when none does.
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) {
    return 1;
  }
  std::size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    lo = c == 0xE0 ? 0xA0 : 0x80;
    hi = c == 0xED ? 0x9F : 0xBF;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    lo = c == 0xF0 ? 0x90 : 0x80;
    hi = c == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (i + n > text.size() || byte(i + 1) < lo || byte(i + 1) > hi) {
    return 0;
  }
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) {
      return 0;
    }
  }
  return n;
}

}  // namespace

void check_utf8(std::string_view text, const std::string& path) {
  int line = 1;
  int column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) {
      throw InputError(SourceLocation{path, line, column}, "",
                       fmt::format("not UTF-8 text (byte 0x{:02X}); every input must be UTF-8",
                                   static_cast<unsigned char>(text[i])));
    }
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += n;
  }
}

std::string read_text_file(const std::string& path, std::string_view what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::is_directory(status)) {
    throw InputError(SourceLocation{path, 0, 0}, "",
                     "cannot open " + std::string(what) + ": it is a directory");
  }
  if (!ec && std::filesystem::is_regular_file(status)) {
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxInputFileBytes) {
      throw InputError(SourceLocation{path, 0, 0}, "",
                       fmt::format("{} is {} bytes; an input file has at most {}", what, size,
                                   kMaxInputFileBytes));
    }
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw InputError(SourceLocation{path, 0, 0}, "",
                     "cannot open " + std::string(what) +
                         (err != 0 ? std::string(": ") + std::strerror(err) : std::string()));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    throw InputError(SourceLocation{path, 0, 0}, "", "cannot read " + std::string(what));
  }
  std::string text = ss.str();
  if (text.starts_with("\xEF\xBB\xBF")) {
    text.erase(0, 3);  // a UTF-8 byte order mark: accepted and dropped
  }
  check_utf8(text, path);
  return text;
}

}  // namespace tidesim
