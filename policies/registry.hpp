#pragma once
/// The plugin registry: an explicit function mapping the built-in plugins' names to factories
/// (mirrors pkg/scheduler/framework/plugins/registry.go), plus the plugins that registered
/// themselves with a PluginRegistrar (out-of-tree plugins: docs/writing-a-policy.md).
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "tidesim/policies/framework.hpp"
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
/// formulas, volume/image/port plugins as named no-ops), LoadAwareFilter, LoadAwareScorer,
/// FIFOSort and the GPU-sharing scores, and every plugin registered with a PluginRegistrar.
/// Throws std::logic_error when a registered plugin takes a built-in plugin's name.
Registry builtin_registry();

/// Registers a plugin by an explicit call, as kube-scheduler's `app.WithPlugin` does: call it
/// before the first scheduler is built (first thing in main(), or through
/// `tidesim::cli::run_command_line(argc, argv, {with_plugin(...)})`, tools/cli/command_line.hpp).
/// From then on every registry builtin_registry() returns holds the plugin, so a
/// KubeSchedulerConfiguration can enable it by name. Throws std::logic_error when the name is
/// already registered (a built-in plugin's name is refused when a registry is built).
void register_plugin(std::string name, RegistryEntry entry);

/// Registers a plugin from its own source file, without editing tidesim's: a namespace-scope
///
///     const tidesim::policies::PluginRegistrar kRegistrar{"MyScore", make_my_score};
///
/// adds it to every registry builtin_registry() returns, so a KubeSchedulerConfiguration can
/// enable it by name. Registration runs before main(), so the object file must be part of the
/// program: list the source in add_executable() (a static library's member that nothing
/// references is dropped by the linker). A second registration of one name throws
/// std::logic_error (the program stops at start-up). It calls register_plugin().
class PluginRegistrar {
 public:
  PluginRegistrar(std::string name, RegistryEntry entry);
};

/// The plugins registered with PluginRegistrar so far, by name.
const Registry& registered_plugins();

}  // namespace tidesim::policies
