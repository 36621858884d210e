#pragma once
/// Topology-aware workload scheduling (KEP-5732, alpha in v1.36 behind the
/// TopologyAwareWorkloadScheduling gate): all pods of a gang whose PodGroup names a topology key
/// (PodGroupStatus::topology_key) are placed on nodes sharing one value of that node label.
/// The KEP's three phases, in one PreFilter + Filter plugin "TopologyPlacement":
///  1. placements: one per distinct value of the label among the nodes (TopologyPlacementGenerator,
///     pkg/scheduler/framework/plugins/topologyaware/topology_placement.go); while pods of the
///     group are assigned, only the domain they hold;
///  2. feasibility: the group's unassigned pods placed one by one on the placement's nodes (no
///     backtracking); feasible when at least minCount minus the assigned pods fit;
///  3. scoring: PlacementBinPacking (noderesources/placement_bin_packing.go: the scoring
///     strategy, MostAllocated by default, over the placement's summed allocatable and requests
///     with the proposed pods) plus PodGroupPodsCount (podgrouppodscount: assigned + proposed
///     pods, normalised to 0-100 by the best placement); the highest sum wins, ties to the
///     smallest label value.
/// PreFilter decides for the group when none of its pods is assigned and remembers the domain;
/// Filter then rejects nodes outside it, so the profile's filters and scores place each pod
/// inside the domain. No feasible placement: the pod is Unschedulable with the reason below and
/// is retried on cluster events. docs/topology-aware.md, "Upstream Kubernetes".
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/plugin_args.hpp"
#include "tidesim/policies/plugins/noderesources.hpp"

namespace tidesim::policies {

/// The plugin's args: PlacementBinPackingArgs' scoringStrategy (type, resources, shape) as
/// NodeResourcesFitArgs writes it; type MostAllocated when absent (the KEP's "tightest fit").
struct TopologyPlacementArgs {
  FitArgs fit;
};
TopologyPlacementArgs parse_topology_placement_args(const PluginArgs& args);

/// PlacementBinPacking's ScorePlacement over the nodes `nodes` of `view` with `proposed` (the
/// summed non-zero requests of the pods proposed there) added: per resource of `args.fit`,
/// requested = the nodes' requests (cpu/memory non-zero, scalar resources real) + proposed,
/// allocatable = the nodes' sum; a scalar resource the proposed pods do not ask is left out.
std::int64_t placement_bin_packing_score(const TopologyPlacementArgs& args, const ClusterView& view,
                                         std::span<const int> nodes, const Resources& proposed);

/// One candidate placement: a value of the topology label and its nodes.
struct PlacementCandidate {
  std::string domain;
  std::vector<int> nodes;
  /// Pods of the group that fit there (at most the unassigned ones).
  int pods = 0;
  bool feasible = false;
  std::int64_t bin_packing = 0;
  std::int64_t pods_count = 0;  // normalised
};

/// What the placement phases give for `pod` of `group` on `view`.
struct PlacementDecision {
  std::vector<PlacementCandidate> candidates;  // by label value
  /// Index into `candidates` of the chosen one; nullopt when none is feasible.
  std::optional<std::size_t> chosen;
  /// Why none is feasible (empty when one is).
  std::string reason;
};
PlacementDecision decide_placement(const TopologyPlacementArgs& args, const ClusterView& view,
                                   const PodSpec& pod, const PodGroupStatus& group);

std::unique_ptr<Plugin> make_topology_placement(const TopologyPlacementArgs& args);

}  // namespace tidesim::policies
