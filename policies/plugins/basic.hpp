#pragma once
/// Kubernetes' simple placement plugins (NodeUnschedulable, NodeName, TaintToleration,
/// NodeAffinity), the queue-sort plugins, and the named no-op plugins (volumes, ports, images,
/// preemption, binding) that default profiles list.
#include <memory>
#include <string>

#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/plugin_args.hpp"

namespace tidesim::policies {

/// The extension point a no-op plugin claims (so profile validation sees it there).
enum class NoopPoint { kPreEnqueue, kFilter, kPostFilter, kScore, kBind };

/// A named plugin with no effect: Filter always passes, Score is always 0 (ImageLocality with no
/// images cached), PostFilter (DefaultPreemption) finds no victims. It takes no args (the
/// registry's plugin_without_args: an unknown arg is an error).
std::unique_ptr<Plugin> make_noop_plugin(const std::string& name, NoopPoint point);

/// PrioritySort (queuesort/priority_sort.go): higher priority first, then earlier timestamp.
std::unique_ptr<Plugin> make_priority_sort();
/// FIFOSort (tidesim): queue timestamp only.
std::unique_ptr<Plugin> make_fifo_sort();
/// NodeUnschedulable (nodeunschedulable/node_unschedulable.go).
std::unique_ptr<Plugin> make_node_unschedulable();
/// NodeName (nodename/node_name.go).
std::unique_ptr<Plugin> make_node_name();
/// TaintToleration (tainttoleration/taint_toleration.go), filter + score (weight 3 by default).
std::unique_ptr<Plugin> make_taint_toleration();

/// NodeAffinityArgs: tidesim supports none of its fields (addedAffinity is refused by name).
struct NodeAffinityArgs {};
NodeAffinityArgs parse_node_affinity_args(const PluginArgs& args);
/// NodeAffinity (nodeaffinity/node_affinity.go): nodeSelector + required affinity (filter),
/// preferred affinity (score, weight 2 by default).
std::unique_ptr<Plugin> make_node_affinity(const NodeAffinityArgs& args);

/// True when `node` satisfies `pod`'s nodeSelector and required node affinity
/// (component-helpers/scheduling/corev1/nodeaffinity GetRequiredNodeAffinity(pod).Match(node)).
bool matches_required_node_affinity(const PodSpec& pod, const NodeSpec& node);
/// True when `node` satisfies one node selector term (expressions and metadata.name fields ANDed;
/// an empty term matches nothing, as in Kubernetes).
bool matches_node_selector_term(const NodeSelectorTerm& term, const NodeSpec& node);

}  // namespace tidesim::policies
