#include "sim/engine/error.hpp"

#include <fmt/core.h>

namespace tidesim {

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
    out += fmt::format("{}: ", field);
  }
  out += message;
  return out;
}

InputError::InputError(SourceLocation where, std::string field, std::string message)
    : std::runtime_error(format_input_error(where, field, message)),
      where_(std::move(where)),
      field_(std::move(field)),
      message_(std::move(message)) {}

InputError::InputError(std::string message)
    : std::runtime_error(message), message_(std::move(message)) {}

}  // namespace tidesim
