#pragma once
/// KubeSchedulerConfiguration loading (kubescheduler.config.k8s.io/v1beta3 and v1): profiles,
/// plugins per extension point and multiPoint, enabled/disabled (including "*"), weights,
/// pluginConfig args, percentageOfNodesToScore, pod back-off, and tidesim's profile key
/// nodeSelection. Every error names the file, line, profile, plugin and field.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/policies/registry.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim::policies {

/// One entry of `plugins.<point>.enabled|disabled` (config.Plugin).
struct PluginEntry {
  std::string name;
  /// The configured weight; nullopt when not given.
  std::optional<std::int64_t> weight;
  /// Where the entry came from (for errors).
  SourceLocation where;
  /// Its path in the file, e.g. "profiles[0].plugins.score.enabled[0]".
  std::string path;
};

/// `plugins.<point>` (config.PluginSet).
struct PluginSet {
  std::vector<PluginEntry> enabled;
  std::vector<PluginEntry> disabled;
};

/// The extension points a profile's `plugins` may name, in cycle order.
const std::vector<std::string>& extension_point_names();

/// One profile as written (before merging with the default plugins).
struct ProfileConfig {
  std::string scheduler_name = "default-scheduler";
  /// Keyed by extension point name ("queueSort", ..., "multiPoint"); absent = not configured.
  std::map<std::string, PluginSet> plugins;
  /// pluginConfig args by plugin name, as written.
  std::map<std::string, PluginArgs> plugin_args;
  /// Every registry plugin's args, decoded into its typed struct when the configuration was
  /// loaded (decode_plugin_args): what the plugin is built from.
  std::map<std::string, DecodedArgs, std::less<>> decoded_args;
  /// The profile's percentageOfNodesToScore (overrides the global one), 0-100; 0 = adaptive.
  std::optional<int> percentage_of_nodes_to_score;
  /// Names the profile in errors: "FILE profiles[I](NAME)".
  std::string label;
  /// Where the profile is.
  SourceLocation where;
  /// tidesim's profile key `nodeSelection: FirstFeasible` (default `Score`, Kubernetes' cycle):
  /// filter nodes in node order from the first, stop at the first feasible one and bind it, with
  /// no node sampling and no scoring (the first-fit baseline).
  bool first_feasible = false;
};

/// A whole configuration file.
struct SchedulerConfig {
  std::vector<ProfileConfig> profiles;
  /// Global percentageOfNodesToScore (0 = adaptive).
  int percentage_of_nodes_to_score = 0;
  /// podInitialBackoffSeconds / podMaxBackoffSeconds (defaults 1 s / 10 s).
  Duration pod_initial_backoff = std::chrono::seconds(1);
  Duration pod_max_backoff = std::chrono::seconds(10);
  /// The file it came from.
  std::string file;
};

/// Parses a configuration file and decodes every plugin's args with `registry`'s decoders. Throws
/// InputError on a syntax error, an unknown key, a wrong apiVersion/kind, a bad value, a bad
/// plugin arg, pluginConfig for a plugin `registry` does not hold.
SchedulerConfig load_scheduler_config_file(const std::string& path,
                                           const Registry& registry = builtin_registry());
/// Parses configuration text; `name` stands for the file in errors.
SchedulerConfig load_scheduler_config_string(const std::string& text, const std::string& name,
                                             const Registry& registry = builtin_registry());

/// The args plugin `name` (in `registry`) is built from in `profile`: its own pluginConfig args,
/// plus, when its registry entry names an args group, every key set for another plugin of that
/// group and not for it (RegistryEntry::args_group), decoded by the entry's decoder.
DecodedArgs decode_plugin_args(const ProfileConfig& profile, const Registry& registry,
                               const std::string& name);

/// The default plugins (apis/config/v1/default_plugins.go getDefaultPlugins, Kubernetes 1.28):
/// all in multiPoint, with score weights TaintToleration 3, NodeAffinity 2, NodeResourcesFit 1,
/// PodTopologySpread 2, InterPodAffinity 2, NodeResourcesBalancedAllocation 1, ImageLocality 1.
std::vector<PluginEntry> default_multi_point_plugins();

/// apis/config/v1/default_plugins.go mergePluginSet: custom `disabled` (or "*") removes default
/// entries; a custom enabled entry naming a default replaces it in place; other custom entries
/// are appended.
PluginSet merge_plugin_set(const PluginSet& defaults, const PluginSet& custom);

}  // namespace tidesim::policies
