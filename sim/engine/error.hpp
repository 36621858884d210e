#pragma once
/// Errors for bad input: every one names where it came from (file, line, column, field).
#include <stdexcept>
#include <string>

namespace tidesim {

/// Where a value came from. Line and column are 1-based; 0 means unknown.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

/// Bad user input (scenario, trace, manifest, topology, flag). The CLI maps it to exit code 2.
/// what() is "file:line:column: field: message" with the parts that are known.
class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, std::string field, std::string message);
  /// An error with no location (a command-line flag, say).
  explicit InputError(std::string message);

  const SourceLocation& where() const { return where_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string field_;
  std::string message_;
};

/// Formats "file:line:column: field: message", leaving out the parts that are empty or zero.
std::string format_input_error(const SourceLocation& where, const std::string& field,
                               const std::string& message);

}  // namespace tidesim
