#pragma once
/// The inputs and outputs of Kueue's topology-aware scheduling (TAS) placement, as Kueue defines
/// them (kubernetes-sigs/kueue @ff69552, v0.20 development line: apis/kueue/v1beta2
/// topology_types.go and workload_types.go, pkg/cache/scheduler/tas_flavor_snapshot.go).
/// docs/topology-aware.md describes the model. Resources are Kueue's `resources.Requests`: a
/// map from resource name to an integer amount, CPU in millicores and every other resource in
/// whole units (resources.ResourceValue: Quantity.MilliValue() for cpu, Quantity.Value() else).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/engine/checked.hpp"

namespace tidesim::tas {

/// The label of the per-node level (corev1.LabelHostname).
inline constexpr const char* kHostnameLabel = "kubernetes.io/hostname";

/// Resource name -> amount (Kueue's resources.Requests).
using ResourceMap = std::map<std::string, std::int64_t>;

/// A node as TAS sees it: its labels, allocatable, taints, `spec.unschedulable` and whether its
/// Ready condition is True.
struct TasNode {
  std::string name;
  std::map<std::string, std::string> labels;
  ResourceMap allocatable;
  std::vector<Taint> taints;
  bool unschedulable = false;
  bool ready = true;
};

/// A pod bound to a node and not managed by TAS (a DaemonSet, a static pod, a Deployment): its
/// requests are taken off the node's free capacity unless it has finished.
struct TasPod {
  std::string name;
  std::string node_name;
  std::string phase = "Running";  // Pending | Running | Succeeded | Failed
  ResourceMap requests;
};

/// One layer of `podset-slice-required-topology-constraints` (or the single layer given by
/// `podset-slice-required-topology` + `podset-slice-size`).
struct SliceLayer {
  std::string topology;
  std::int32_t size = 0;
};

/// Workload.spec.podSets[].topologyRequest (filled from the PodSet annotations).
struct TopologyRequest {
  std::optional<std::string> required;
  std::optional<std::string> preferred;
  bool unconstrained = false;
  /// podset-slice-required-topology / podset-slice-size, as written.
  std::optional<std::string> slice_topology;
  std::optional<std::int32_t> slice_size;
  /// podset-slice-required-topology-constraints; when set it replaces the two fields above.
  std::vector<SliceLayer> slice_layers;
  std::optional<std::string> group;  // podset-group-name
};

/// The slice layers a request asks for, outermost first (Kueue's
/// PodSetSliceRequiredTopologyConstraints): the constraints list when given, else the single
/// layer of slice_topology with slice_size (size 0 when the size is missing).
std::vector<SliceLayer> slice_layers(const TopologyRequest& request);

/// One entry of a topologyAssignment: label values (one per level) and a pod count.
struct DomainAssignment {
  std::vector<std::string> values;
  std::int32_t count = 0;
  friend bool operator==(const DomainAssignment&, const DomainAssignment&) = default;
};

/// Kueue's TopologyAssignment (levels and domains; only hostnames when the lowest level is
/// kubernetes.io/hostname).
struct TopologyAssignment {
  std::vector<std::string> levels;
  std::vector<DomainAssignment> domains;
  friend bool operator==(const TopologyAssignment&, const TopologyAssignment&) = default;
};

/// One PodSet to place: Kueue's TASPodSetRequests with the parts of its pod template TAS reads.
struct TasPodSet {
  std::string name;
  std::int32_t count = 0;
  /// One pod's requests (without the `pods` unit, which the placement adds).
  ResourceMap requests;
  /// nullopt: no TAS annotation ("implied": unconstrained at the lowest level, which Kueue
  /// applies when every flavor of the ClusterQueue has a topology).
  std::optional<TopologyRequest> topology;
  std::vector<Toleration> tolerations;
  std::map<std::string, std::string> node_selector;
  std::vector<NodeSelectorTerm> required_affinity;  // ORed terms; empty: none
  std::vector<PreferredSchedulingTerm> preferred_affinity;
  /// The assignment of the workload slice this one replaces (elastic jobs); with
  /// ElasticJobsViaWorkloadSlicesWithTAS its pods stay where they are.
  std::optional<TopologyAssignment> previous_assignment;
};

/// Kueue's DomainID: the label values joined by ",".
inline std::string domain_id(const std::vector<std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    out += (i ? "," : "") + values[i];
  }
  return out;
}

/// Kueue's feature gates that change placement, with their defaults at @ff69552
/// (pkg/features/kube_features.go).
struct TasFeatureGates {
  bool profile_mixed = true;                     // TASProfileMixed (beta since 0.15)
  bool balanced_placement = false;               // TASBalancedPlacement (alpha)
  bool multi_layer_topology = true;              // TASMultiLayerTopology (beta since 0.19)
  bool respect_node_affinity_preferred = false;  // TASRespectNodeAffinityPreferred (alpha)
  /// SkipReassignmentForPodOwnedWorkloads (beta since 0.19): a Workload of one bare Pod keeps its
  /// assignment when its node fails (the pod cannot move).
  bool skip_reassignment_for_pod_owned = true;
  /// ElasticJobsViaWorkloadSlices (beta) and ElasticJobsViaWorkloadSlicesWithTAS (alpha, off):
  /// with the second, a resized workload keeps its previous pods where they are.
  bool elastic_jobs = false;
  bool elastic_jobs_with_tas = false;
};

/// Sets the gate `name` (Kueue's spelling) to `value`; false when tidesim does not know it.
bool set_feature_gate(TasFeatureGates& gates, const std::string& name, bool value);
/// The gate names set_feature_gate knows, in name order.
std::vector<std::string> feature_gate_names();

/// An admitted Workload one of whose nodes failed (Kueue's TASFailedNodeReplacement, beta and on
/// since 0.14): its PodSets' current assignments, the node (the first of
/// status.unhealthyNodes), and whether it is owned by a single bare Pod.
struct NodeReplacement {
  std::string unhealthy_node;
  std::map<std::string, TopologyAssignment> assignments;  // by PodSet name
  bool owned_by_single_pod = false;
};

/// The outcome for one PodSet: an assignment, or Kueue's reason why it does not fit. When a
/// PodSet of a group fails, every PodSet of the group gets the reason.
struct PodSetResult {
  std::string name;
  std::optional<TopologyAssignment> assignment;
  std::string reason;
  bool admitted() const { return reason.empty(); }
};

}  // namespace tidesim::tas
