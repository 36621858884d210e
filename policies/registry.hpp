#pragma once
/// The plugin registry: an explicit function mapping plugin names to factories (static
/// self-registration would be dropped by the linker from a static library). Mirrors
/// pkg/scheduler/framework/plugins/registry.go.
#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "policies/framework.hpp"
#include "sim/engine/yaml_fields.hpp"

namespace tidesim::policies {

/// A plugin's `pluginConfig[].args`, with where it came from for error messages.
struct PluginArgs {
  /// The args mapping; undefined or null when the profile configures none (defaults apply).
  YAML::Node node;
  /// The config file ("<builtin:NAME>" for built-in profiles).
  std::string file;
  /// Names the args in errors, e.g.
  /// "profiles[0](load-aware-scheduler).pluginConfig[1](LoadAwareScorer).args".
  std::string path;
};

/// A strict reader over `args` (an empty mapping when none were given). It already allows the
/// `apiVersion` and `kind` keys that typed args may carry; call finish() after reading.
Fields args_fields(const PluginArgs& args);

/// Builds a plugin from its args; throws InputError naming the field on a bad arg.
using PluginFactory = std::function<std::unique_ptr<Plugin>(const PluginArgs&)>;

/// What the registry knows of one plugin.
struct RegistryEntry {
  RegistryEntry() = default;
  /// `{factory}` or `{factory, "Group"}`.
  RegistryEntry(PluginFactory f, std::string group = {})
      : factory(std::move(f)), args_group(std::move(group)) {}

  /// Builds the plugin from its args.
  PluginFactory factory;
  /// Plugins that name the same non-empty group read one args mapping: the framework gives each
  /// its own pluginConfig args plus every key that the profile's pluginConfig sets for another
  /// plugin of the group and not for it (other plugins taken in name order; the first to set a
  /// key wins). Empty: the plugin reads only its own args (every Kubernetes plugin).
  std::string args_group;
};

/// Plugin name -> entry.
using Registry = std::map<std::string, RegistryEntry, std::less<>>;

/// Every plugin tidesim knows: Kubernetes' default set (placement plugins with their real
/// formulas, volume/image/port plugins as named no-ops) plus LoadAwareFilter, LoadAwareScorer and
/// FIFOSort.
Registry builtin_registry();

}  // namespace tidesim::policies
