#include "tidesim/sim/input/error.hpp"

#include <fmt/core.h>

namespace tidesim {

std::string shorten_tokens(std::string_view text, std::size_t max) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\n') {
      ++i;
    }
    const std::string_view token = text.substr(start, i - start);
    if (token.size() > max) {
      out += fmt::format("{}...({} characters)", token.substr(0, max / 2), token.size());
    } else {
      out += token;
    }
    if (i < text.size()) {
      out += text[i++];
    }
  }
  return out;
}

std::string show_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u == 0) {
      out += "\\0";
    } else if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) {
      out += fmt::format("\\x{:02X}", u);
    } else {
      out += c;
    }
  }
  return out;
}

std::string format_input_error(const SourceLocation& where, const std::string& field,
                               const std::string& message) {
  std::string out;
  if (!where.file.empty()) {
    out = where.file;
    if (where.line > 0) {
      out += fmt::format(":{}", where.line);
      if (where.column > 0) {
        out += fmt::format(":{}", where.column);
      }
    }
    out += ": ";
  }
  if (!field.empty()) {
    out += fmt::format("{}: ", shorten_tokens(field));
  }
  out += shorten_tokens(message);
  return show_controls(out);
}

InputError::InputError(SourceLocation where, std::string field, std::string message)
    : std::runtime_error(format_input_error(where, field, message)),
      where_(std::move(where)),
      field_(std::move(field)),
      message_(std::move(message)) {}

InputError::InputError(std::string message)
    : std::runtime_error(show_controls(message)), message_(std::move(message)) {}

}  // namespace tidesim
