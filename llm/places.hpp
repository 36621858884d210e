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

  /// The location of `field`: where it was written, else the file alone.
  SourceLocation where(const std::string& field) const {
    const auto it = at.find(field);
    return it != at.end() ? it->second : SourceLocation{.file = file};
  }
  /// An InputError at `field` ("file:line:column: prefix.field: message").
  InputError error(const std::string& field, const std::string& message) const {
    return InputError(where(field), prefix + field, message);
  }
};

}  // namespace tidesim::llm
