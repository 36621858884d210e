#pragma once
/// Kubernetes' Workload API (sig-scheduling): the `scheduling.k8s.io/v1alpha1` `Workload` object of
/// KEP-4671 (gang scheduling, alpha in v1.35; k8s.io/api scheduling/v1alpha1 types.go) with the
/// group topology constraint of KEP-5732 (topology-aware workload scheduling, alpha in v1.36).
/// A Workload lists at most 8 pod groups (WorkloadMaxPodGroups); each has a `name` (a DNS label)
/// and a `policy` that is exactly one of `basic: {}` (pods scheduled one by one) and
/// `gang: {minCount: N}` (all or nothing for at least N pods). Pods join a group with
/// `spec.workloadRef: {name, podGroup, podGroupReplicaKey}`; each replica key is a gang of its own.
/// KEP-5732 adds `schedulingConstraints: {topology: [{key: LABEL}]}` (one constraint): every pod
/// of the group on nodes with one value of the node label LABEL. In v1.36 that field is on the
/// v1alpha2 PodGroupTemplate and PodGroup objects; tidesim reads it on the v1alpha1 pod group
/// entry, the one place a group is written here (docs/topology-aware.md, "Upstream Kubernetes").
/// Every error names file, line, column and field.
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/workloads/job.hpp"

namespace tidesim::workloads {

/// The Workload API group and version tidesim reads.
inline constexpr const char* kWorkloadApiVersion = "scheduling.k8s.io/v1alpha1";
/// WorkloadMaxPodGroups (k8s.io/api scheduling/v1alpha1 types.go).
inline constexpr int kWorkloadMaxPodGroups = 8;
/// How long the pods of a gang wait at Permit for minCount pods to be assigned
/// (DefaultSchedulingTimeoutDuration, pkg/scheduler/backend/workloadmanager, v1.35: 5 minutes).
inline constexpr Duration kWorkloadGangTimeout = std::chrono::minutes(5);

/// One entry of a Workload's spec.podGroups.
struct WorkloadPodGroup {
  std::string name;
  /// policy.gang.minCount; nullopt for policy.basic.
  std::optional<int> min_count;
  SourceLocation min_count_where;
  /// schedulingConstraints.topology[0].key (KEP-5732); "" when absent.
  std::string topology_key;
  /// Where `name` is written, and the entry's field path.
  SourceLocation where;
  std::string path;
};

/// A Workload object.
struct WorkloadObject {
  std::string name;
  SourceLocation where;
  std::vector<WorkloadPodGroup> pod_groups;
};

/// Reads one pod group entry (the mapping `n` at `path`): name, policy (exactly one of basic and
/// gang), schedulingConstraints.
WorkloadPodGroup read_workload_pod_group(const ConfigNode& n, const std::string& file,
                                         const std::string& path);

/// Reads a Workload whose apiVersion and kind `top` has already read: metadata.name and
/// spec.podGroups (1 to 8 entries, unique names; spec.controllerRef accepted and ignored).
WorkloadObject read_workload_object(Fields& top, const std::string& file);

/// The gang of a job whose pods join `group`: permit mode, minMember minCount, the 5-minute
/// timeout, and the group's topology key; nullopt for a basic group without a constraint.
/// `pods`: the job's pods (minCount must not exceed them; 0: not checked).
std::optional<GangSpec> gang_of(const WorkloadPodGroup& group, int pods);

}  // namespace tidesim::workloads
