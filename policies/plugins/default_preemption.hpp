#pragma once
/// DefaultPreemption (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go and
/// pkg/scheduler/framework/preemption/preemption.go) as a PostFilter plugin: when no node fits a
/// pod, find the nodes where deleting pods of lower priority would make it fit, the minimal
/// victim set on each (remove every lower-priority pod, then re-add them most important first
/// while the pod still fits: the "reprieve"), and pick one node in Kubernetes' order. The pod is
/// nominated to that node; the loop deletes the victims after their grace period.
///
/// Differences from Kubernetes, on purpose: PodDisruptionBudgets are not modelled (every victim
/// counts as violating none); every node is a potential candidate (Kubernetes dry-runs at least
/// 100 nodes or 10 %, from a random offset, so the two agree on clusters of up to 100 nodes);
/// the dry run removes victims from the ClusterView only, so the per-card state of the
/// GPU-sharing policies (NodeInfo::gpu_milli_left) is not given back in it. docs/job-scheduling.md.
#include <memory>
#include <optional>
#include <vector>

#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/plugin_args.hpp"

namespace tidesim::policies {

/// True when pod `a` is more important than `b` (pkg/scheduler/util MoreImportantPod): higher
/// priority, then the earlier start time.
bool more_important(std::int32_t a_priority, TimePoint a_start, std::int32_t b_priority,
                    TimePoint b_start);

/// The victims on one node and what pickOneNodeForPreemption compares.
struct NodeVictims {
  int node = -1;
  /// Most important first; with their start times (bind times).
  std::vector<std::shared_ptr<const PodSpec>> pods;
  std::vector<TimePoint> started;
};

/// SelectVictimsOnNode: the minimal victims on `node` of `view` for `pod`; nullopt when the pod
/// does not fit even with every lower-priority pod removed. `view` is modified during the call
/// and restored before it returns.
std::optional<NodeVictims> select_victims_on_node(const PodSpec& pod, ClusterView& view, int node,
                                                  FilterRunner& filters);

/// pickOneNodeForPreemption: the index into `candidates` of the chosen node: fewest PDB
/// violations (none modelled), then the lowest highest-victim priority, the smallest sum of
/// victim priorities, the fewest victims, the latest start time of the highest-priority victims,
/// then the first. A candidate without victims is taken at once.
std::size_t pick_one_node(const std::vector<NodeVictims>& candidates);

/// The plugin.
std::unique_ptr<Plugin> make_default_preemption();

}  // namespace tidesim::policies
