#pragma once
/// Where each field of an LLM input struct was written, so that a check made after reading (the
/// layout against the model, say) can still name the file, line, column and field.
#include <map>
#include <string>

#include "tidesim/sim/input/error.hpp"

namespace tidesim::llm {

/// The places of one struct's fields: its file, the field path prefix ("" for a Calculon file,
/// "execution." inside a job file) and the location of each field that was read from a file.
struct FieldPlaces {
  std::string file;
  std::string prefix;
  std::map<std::string, SourceLocation> at;
  /// Where the struct itself was written (its mapping, or a preset's name); line 0 if unknown.
  SourceLocation origin;

  /// The location of `field`: where it was written, else where the struct was, else the file.
  SourceLocation where(const std::string& field) const {
    const auto it = at.find(field);
    if (it != at.end()) {
      return it->second;
    }
    return origin.line > 0 ? origin : SourceLocation{.file = file};
  }
  /// An InputError at `field` ("file:line:column: prefix.field: message").
  InputError error(const std::string& field, const std::string& message) const {
    return InputError(where(field), prefix + field, message);
  }
};

}  // namespace tidesim::llm
