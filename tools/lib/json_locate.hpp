#pragma once
/// Where a value is in a JSON text, for error messages about a field of a result file (nlohmann's
/// DOM keeps no positions): nlohmann's SAX parser walks the text, so names are compared as JSON
/// reads them (escapes decoded), and one tokenizer reads result files. Only called on an error, on
/// text that has already parsed.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "tidesim/sim/input/error.hpp"

namespace tidesim::app {

/// The 1-based line and column (in bytes) of the value at `path` in the JSON `text`: member names
/// joined by '.', array indices as "[i]" (e.g. "runs[0].jobs[3].state"; a leading '.' is
/// ignored). When part of the path does not exist (a missing field), the deepest value that does;
/// the whole text's first value for an empty path. `file` is copied into the result.
SourceLocation locate_json_value(std::string_view text, std::string_view path,
                                 const std::string& file);

/// The first member of the JSON `text` whose name its object already has (nlohmann, like most
/// JSON readers, silently keeps one of the two): its path (as locate_json_value reads paths, e.g.
/// "runs[0].metrics.goodput") and the place of its second name. Nothing when every object names
/// each member once. `file` is copied into the place.
std::optional<std::pair<std::string, SourceLocation>> find_repeated_json_key(
    std::string_view text, const std::string& file);

/// The 1-based line and column (in bytes) of byte `offset` (0-based) of `text`.
SourceLocation locate_json_offset(std::string_view text, std::size_t offset,
                                  const std::string& file);

/// nlohmann's exception text (`what()`) without its machinery: "[json.exception.parse_error.101]
/// parse error at line 3, column 1: syntax error while parsing value - unexpected '}'" is
/// "syntax error while parsing value - unexpected '}'" (the place goes in the error's location).
std::string plain_json_message(std::string_view what);

}  // namespace tidesim::app
