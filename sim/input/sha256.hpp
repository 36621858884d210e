#pragma once
/// The SHA-256 of a text, the hash that identifies an input a result was made from (a scheduler
/// profile's text, a scenario's file in a result's provenance: docs/outputs.md).
#include <string>
#include <string_view>

namespace tidesim {

/// "sha256:" + 64 lower-case hex digits of `data`.
std::string sha256_hex(std::string_view data);

}  // namespace tidesim
