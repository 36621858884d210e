#pragma once
/// The `tidesim` command line as a function, so that a program can add plugins explicitly, as
/// kube-scheduler's `app.NewSchedulerCommand(app.WithPlugin(name, factory))` does:
///
///     int main(int argc, char** argv) {
///       return tidesim::cli::run_command_line(
///           argc, argv, {tidesim::cli::with_plugin("FewestPods", {make_fewest_pods})});
///     }
///
/// (docs/writing-a-policy.md, "Register and build it"). The `tidesim` program's main() is
/// `run_command_line(argc, argv)`.
#include <string>
#include <vector>

#include "tidesim/policies/registry.hpp"

namespace tidesim::cli {

/// A plugin a program adds to the command line's registry.
struct PluginOption {
  std::string name;
  policies::RegistryEntry entry;
};

/// `{name, entry}`: the plugin `name`, its args decoded by `entry.decode` and built by
/// `entry.factory` (kube-scheduler's WithPlugin).
PluginOption with_plugin(std::string name, policies::RegistryEntry entry);

/// Builds the command line's plugin registry, a value: the default registry
/// (policies::builtin_registry(): the built-ins plus the plugins registered with
/// policies::register_plugin or a PluginRegistrar) plus `plugins`, and hands it to the
/// subcommands, which load every profile with it; then parses the command line and runs its
/// subcommand. Returns the exit code: 0 success, 1 runtime failure (a plugin name given twice or
/// taken by a registered plugin, too), 2 bad input or usage.
int run_command_line(int argc, char** argv, std::vector<PluginOption> plugins = {});

}  // namespace tidesim::cli
