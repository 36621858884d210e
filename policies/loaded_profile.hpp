#pragma once
/// A scheduler profile resolved and loaded once. A policy names its scheduler by a built-in name or
/// a KubeSchedulerConfiguration file's path; load_profile() reads, parses and decodes it when the
/// scenario is loaded or `--policy` is resolved, and every run of the policy builds its scheduler
/// from that one load (make_scheduler(const LoadedProfile&, ...)), so an edit of the file during
/// a run or a sweep changes nothing, and the provenance hashes the text that ran.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/policies/config.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim::policies {

/// A built-in scheduler or a KubeSchedulerConfiguration file, read and decoded.
struct LoadedProfile {
  /// The name or path as written.
  std::string source;
  /// The file read (resolved against ProfilePlace::folder); empty for a built-in.
  std::string path;
  bool builtin = false;
  /// The configuration, its plugins' args decoded (load_scheduler_config_string).
  SchedulerConfig config;
  /// The registry the configuration was decoded with (ProfilePlace::registry): every scheduler
  /// built from this profile (make_scheduler) takes its plugins from it. Never null.
  RegistryPtr registry;
  /// sha256_hex (sim/input/sha256.hpp) of the text parsed: the file as read, or the built-in's
  /// embedded text.
  std::string sha256;
  /// Whether the first profile (the one a run uses) reads node metrics or judges forecasts
  /// (ProfilePlugins::reads_metrics(), reads_forecasts()), answered once at load.
  bool reads_metrics = false;
  bool reads_forecasts = false;
};

/// Where a scheduler is named: for resolving a relative path and for the error of an unknown one.
struct ProfilePlace {
  /// The place of the name (a scenario's file, line and column); empty for a command-line flag.
  SourceLocation where;
  /// The field named in errors: "policies[1].scheduler", "--policy".
  std::string field = "scheduler";
  /// A relative path resolves against this folder (the scenario's); empty: the working directory.
  std::string folder;
  /// The scenario's policy names, where the name could also have been one of them (`--policy`):
  /// the error lists them and suggests the closest of them too.
  std::optional<std::vector<std::string>> scenario_policies;
  /// The plugins the profile may enable; null: default_registry() (built-ins plus the plugins
  /// registered with register_plugin or a PluginRegistrar).
  RegistryPtr registry;
};

/// Resolves `name_or_path` once, by the one rule: the name of a built-in scheduler
/// (builtin_scheduler_names()) is that built-in; anything else is the path of a
/// KubeSchedulerConfiguration file, resolved against place.folder when relative. A path that is no
/// regular file is an unknown scheduler: InputError at `place` with the closest built-in (or
/// scenario policy) name and the list of built-ins. Also throws InputError for a file that does
/// not parse or whose first profile does not build.
std::shared_ptr<const LoadedProfile> load_profile(const std::string& name_or_path,
                                                  const ProfilePlace& place);
/// The same, named outside any scenario (a path relative to the working directory).
std::shared_ptr<const LoadedProfile> load_profile(const std::string& name_or_path);

/// The KubeSchedulerConfiguration file at `path`, whatever its name (`tidesim validate FILE`: a
/// file named like a built-in is still the file), its plugins from `registry` (null: the
/// default). Throws InputError as load_profile.
std::shared_ptr<const LoadedProfile> load_profile_file(const std::string& path,
                                                       RegistryPtr registry = nullptr);

}  // namespace tidesim::policies
