#pragma once
/// The plugin registry: an explicit function mapping the built-in plugins' names to factories
/// (mirrors pkg/scheduler/framework/plugins/registry.go), plus the plugins that registered
/// themselves with a PluginRegistrar (out-of-tree plugins: docs/writing-a-policy.md). A registry
/// is a value: what builds schedulers is handed one (a scenario's load, `--policy`, a profile's
/// load keep it), as kube-scheduler's `app.NewSchedulerCommand(app.WithPlugin(...))` builds its
/// registry and passes it on; two registries may hold different plugins of one name.
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/plugin_args.hpp"

namespace tidesim::policies {

/// Reads a plugin's args into its typed struct, as kube-scheduler decodes and validates typed
/// plugin args: defaults come from the default-constructed struct, a bad arg is an InputError
/// naming the field. It runs once per profile, when the configuration is loaded
/// (load_scheduler_config_*, policies/config.hpp), so a bad arg fails `validate`, not a run.
using ArgsDecoder = std::function<DecodedArgs(const PluginArgs&)>;

/// Builds a plugin from the args its decoder made (once per scheduler: per policy and seed).
using PluginFactory = std::function<std::unique_ptr<Plugin>(const DecodedArgs&)>;

/// What the registry knows of one plugin. Make one with plugin_with_args or plugin_without_args.
struct RegistryEntry {
  /// Decodes the plugin's args.
  ArgsDecoder decode;
  /// Builds the plugin from its decoded args.
  PluginFactory factory;
  /// Plugins that name the same non-empty group read one args mapping: the framework gives each
  /// its own pluginConfig args plus every key that the profile's pluginConfig sets for another
  /// plugin of the group and not for it (other plugins taken in name order; the first to set a
  /// key wins). Empty: the plugin reads only its own args (every Kubernetes plugin).
  std::string args_group;
};

/// The entry of a plugin whose args are an `Args`: `decode` reads them (strictly: read them with
/// args_fields and finish it), `make` builds the plugin from them.
template <class Args>
RegistryEntry plugin_with_args(std::function<Args(const PluginArgs&)> decode,
                               std::function<std::unique_ptr<Plugin>(const Args&)> make,
                               std::string args_group = {}) {
  return RegistryEntry{
      [decode = std::move(decode)](const PluginArgs& a) { return DecodedArgs(decode(a)); },
      [make = std::move(make)](const DecodedArgs& a) { return make(a.get<Args>()); },
      std::move(args_group)};
}

/// The entry of a plugin that takes no args: any key in its args is an error naming it.
RegistryEntry plugin_without_args(std::function<std::unique_ptr<Plugin>()> make);

/// Plugin name -> entry.
using Registry = std::map<std::string, RegistryEntry, std::less<>>;

/// Every plugin tidesim knows: Kubernetes' default set (placement plugins with their real
/// formulas, volume/image/port plugins as named no-ops), LoadAwareFilter, LoadAwareScorer,
/// FIFOSort and the GPU-sharing scores, and every plugin registered with a PluginRegistrar.
/// Throws std::logic_error when a registered plugin takes a built-in plugin's name.
Registry builtin_registry();

/// A registry shared, unchanged, by everything built from it: a loaded profile keeps the one it
/// was loaded with, and every scheduler built from the profile uses it.
using RegistryPtr = std::shared_ptr<const Registry>;

/// builtin_registry() as a shared value: the registry used where none is given.
RegistryPtr default_registry();

/// `base` plus `plugins` (name -> entry), as a new value; `base` is left as it was. Throws
/// std::logic_error naming a plugin whose name `base` already holds.
RegistryPtr registry_with(const Registry& base, Registry plugins);

/// Registers a plugin into the process's default registry (compatibility; prefer a registry
/// value: registry_with, or `tidesim::cli::run_command_line(argc, argv, {with_plugin(...)})`,
/// tools/cli/command_line.hpp, which builds one). Call it before the first scheduler is built
/// (first thing in main()). From then on every registry builtin_registry() returns holds the
/// plugin, so a KubeSchedulerConfiguration can enable it by name. Throws std::logic_error when
/// the name is already registered (a built-in plugin's name is refused when a registry is built).
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
