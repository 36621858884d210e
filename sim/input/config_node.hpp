#pragma once
/// One node of a configuration document as the YAML reader (sim/input/yaml_fields.hpp) made it: a
/// scalar, a list, a mapping, null, or absent (a key the document does not have), with its place
/// in the file. Readers above the input layer walk ConfigNodes (usually through Fields) and never
/// name the parser's types, so nothing outside sim/input compiles against yaml-cpp.
///
/// A ConfigNode is a handle: copies refer to the same node, and set() changes the document every
/// copy sees (as the `--set` overrides need). clone() makes an independent copy.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tidesim/sim/input/error.hpp"

namespace tidesim {

class ConfigNode {
 public:
  /// An absent node (what looking up a missing key gives).
  ConfigNode();
  /// An empty mapping (not part of any document until set() into one).
  static ConfigNode empty_map();

  /// True unless absent (a key that is not there). A null value (`key:` or `key: ~`) is present.
  bool defined() const;
  explicit operator bool() const { return defined(); }
  bool is_null() const;
  bool is_scalar() const;
  bool is_sequence() const;
  bool is_map() const;

  /// The text of a scalar as written (without quotes); empty for any other node.
  const std::string& scalar() const;
  /// Items of a list or entries of a mapping; 0 for anything else.
  std::size_t size() const;
  /// Item `index` of a list; absent when out of range or not a list.
  ConfigNode operator[](std::size_t index) const;
  /// The value of `key` in a mapping; absent when missing or not a mapping. Never adds the key.
  ConfigNode operator[](std::string_view key) const;
  /// A list's items in order; empty for anything else.
  std::vector<ConfigNode> items() const;
  /// A mapping's (key, value) entries in document order; empty for anything else.
  std::vector<std::pair<ConfigNode, ConfigNode>> entries() const;

  /// 1-based line and column where the node starts; 0 when unknown (absent, or made in memory).
  int line() const;
  int column() const;

  /// Sets `key` of this mapping (a null node becomes a mapping) to `value` (null when absent), in
  /// the same document; std::logic_error when this node is neither.
  void set(std::string_view key, const ConfigNode& value);
  /// Sets item `index` (< size()) of this list to `value`; std::logic_error otherwise.
  void set(std::size_t index, const ConfigNode& value);
  /// A deep copy that shares nothing with this node.
  ConfigNode clone() const;

  /// The parser's node behind this handle (sim/input only: yaml_node.hpp).
  struct Impl;
  explicit ConfigNode(std::shared_ptr<Impl> impl);
  const std::shared_ptr<Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

/// The location of `node` in `file` (line and column 0 when unknown).
SourceLocation location_of(const ConfigNode& node, const std::string& file);

}  // namespace tidesim
