#pragma once
/// What a plugin reads its configuration from: its `pluginConfig[].args` (PluginArgs), a strict
/// reader over them, and the args decoded into the plugin's typed struct. Plugins include this,
/// not the registry (policies/registry.hpp), which includes them.
#include <any>
#include <string>
#include <utility>

#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::policies {

/// A plugin's `pluginConfig[].args`, with where it came from for error messages.
struct PluginArgs {
  /// The args mapping; undefined or null when the profile configures none (defaults apply).
  ConfigNode node;
  /// The config file ("<builtin:NAME>" for built-in profiles).
  std::string file;
  /// Names the args in errors, e.g.
  /// "profiles[0](load-aware-scheduler).pluginConfig[1](LoadAwareScorer).args".
  std::string path;
};

/// A strict reader over `args` (an empty mapping when none were given). It already allows the
/// `apiVersion` and `kind` keys that typed args may carry; call finish() after reading.
Fields args_fields(const PluginArgs& args);

/// A plugin's args decoded into its typed args struct (LoadAwareArgs, FitArgs, ...), held without
/// its type; empty for a plugin that takes none. Made only explicitly, so that raw PluginArgs
/// cannot reach a factory by mistake.
class DecodedArgs {
 public:
  DecodedArgs() = default;
  template <class Args>
  explicit DecodedArgs(Args args) : value_(std::move(args)) {}
  /// The args as the type their decoder made; std::bad_any_cast for another type.
  template <class Args>
  const Args& get() const {
    return std::any_cast<const Args&>(value_);
  }

 private:
  std::any value_;
};

}  // namespace tidesim::policies
