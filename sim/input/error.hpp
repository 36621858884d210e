#pragma once
/// Errors for bad input: every one names where it came from (file, line, column, field).
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

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

/// The longest word (run of characters without a space or line break) that an error message shows
/// in full; a longer one is cut (a 30,000-character token makes an unreadable message).
inline constexpr std::size_t kMaxMessageToken = 200;

/// `text` with every word longer than `max` characters replaced by its first max/2 characters and
/// "...(N characters)".
std::string shorten_tokens(std::string_view text, std::size_t max = kMaxMessageToken);

/// `text` with each control character other than a line break or tab shown as an escape ("\0",
/// "\x1B"): a NUL byte from the input would otherwise end the message that what() returns.
std::string show_controls(std::string_view text);

/// Formats "file:line:column: field: message", leaving out the parts that are empty or zero; long
/// words of the field and message are shortened (shorten_tokens) and control characters shown
/// (show_controls).
std::string format_input_error(const SourceLocation& where, const std::string& field,
                               const std::string& message);

}  // namespace tidesim
