#pragma once
// FewestPods (fewest_pods.cpp): a Score plugin that prefers nodes with fewer bound pods.
#include <tidesim/policies/registry.hpp>

#include <memory>

namespace fewest {

/// Builds FewestPods from its args (maxPods, default 10); an unknown arg is an InputError naming
/// it. The factory a registry entry holds: `{make_fewest_pods}`.
std::unique_ptr<tidesim::policies::Plugin> make_fewest_pods(
    const tidesim::policies::PluginArgs& args);

}  // namespace fewest
