#pragma once
// FewestPods (fewest_pods.cpp): a Score plugin that prefers nodes with fewer bound pods.
#include <tidesim/policies/registry.hpp>

#include <cstdint>
#include <memory>

namespace fewest {

/// FewestPods' typed args; the defaults are the default-constructed struct's.
struct FewestPodsArgs {
  /// maxPods, 1-1000: a node with this many pods or more scores 0.
  std::int64_t max_pods = 10;
};

/// Decodes the args (once, when the configuration is loaded); an unknown or bad arg is an
/// InputError naming it.
FewestPodsArgs parse_fewest_pods_args(const tidesim::policies::PluginArgs& args);
/// Builds FewestPods from its decoded args.
std::unique_ptr<tidesim::policies::Plugin> make_fewest_pods(const FewestPodsArgs& args);
/// The registry entry: the decoder and the factory.
tidesim::policies::RegistryEntry fewest_pods_entry();

}  // namespace fewest
