#pragma once
/// Reads a cluster snapshot and a pending Kueue Workload as `kubectl get -o yaml` prints them: the
/// one reader of `tidesim admit` (docs/topology-aware.md) and of a scenario's `cluster.snapshot`
/// (sim/scenario/cluster_snapshot.hpp, docs/scenarios.md). A snapshot is a file or a folder of
/// .yaml/.yml/.json files; each file is one object, a `kind: List` (or NodeList, PodList, ...), or
/// several
/// "---" documents. Read kinds: Node (labels, status.allocatable with `pods`, spec.taints,
/// spec.unschedulable, the Ready condition), Pod (spec.nodeName, container requests,
/// status.phase, the annotation tidesim.io/runs-for), Kueue's Topology (spec.levels[].nodeLabel),
/// ResourceFlavor (spec.nodeLabels, spec.tolerations, spec.topologyName), ClusterQueue
/// (spec.resourceGroups[].flavors[].name; the object is kept for a run's queues, which read its
/// quotas: sim/scenario/quota_config.hpp), LocalQueue (spec.clusterQueue), Volcano's HyperNode
/// (topology.volcano.sh/v1alpha1, read by volcano::read_hypernode), Workload
/// (spec.queueName, spec.podSets[] with count, template and topologyRequest, in
/// kueue.x-k8s.io/v1beta1 or v1beta2; a PodSet without topologyRequest takes it from its template's
/// `kueue.x-k8s.io/podset-*` annotations as Kueue's jobframework does). Other kinds are ignored.
/// Fields tidesim does not read are ignored; a read field with a bad value is an InputError naming
/// file, line, column and field.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/admission/kueue_checks.hpp"
#include "tidesim/sim/admission/tas_model.hpp"
#include "tidesim/sim/admission/volcano_hypernode.hpp"
#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim {

struct KueueFlavor {
  std::string name;
  std::map<std::string, std::string> node_labels;
  std::vector<Toleration> tolerations;
  std::optional<std::string> topology_name;
  SourceLocation where;
};

/// One status.admission.podSetAssignments[] entry of a Workload that holds quota: the flavour
/// of each resource, the count, `delayedTopologyRequest` ("", Pending or Ready) and the
/// topologyAssignment (levels and domains) when it has one.
struct KueuePodSetAdmission {
  std::string name;
  std::map<std::string, std::string> flavors;
  std::optional<std::int32_t> count;
  std::string delayed;
  std::optional<tas::TopologyAssignment> assignment;
};

struct KueueWorkload {
  std::string name;
  std::string namespace_name = "default";
  std::string queue_name;
  std::vector<tas::TasPodSet> podsets;
  /// Each PodSet's spec.podSets[].minCount (its count when absent): Kueue's partial admission.
  std::vector<std::int32_t> min_counts;
  /// status.admission (quota reserved): its PodSet assignments; nullopt when it holds none.
  std::optional<std::vector<KueuePodSetAdmission>> admission;
  /// status.admissionChecks[] with their podSetUpdates.
  std::vector<tas::CheckState> checks;
  SourceLocation where;
};

/// A Node object as the cluster's API server holds it, beside its TasNode (same index).
struct SnapshotNode {
  NodeSpec spec;
  /// The Ready condition's status is True (or the object has no conditions).
  bool ready = true;
  /// The object, and the value of its `nvidia.com/gpu.product` label (the object when absent).
  SourceLocation where;
  SourceLocation product_where;
};

/// A Pod object, beside its TasPod (same index).
struct SnapshotPod {
  std::shared_ptr<const PodSpec> spec;
  /// status.phase ("Running" when absent).
  std::string phase;
  /// The annotation tidesim.io/runs-for: how long the pod keeps running in a replay from its
  /// snapshot (cluster.snapshot); nullopt when absent.
  std::optional<Duration> runs_for;
  SourceLocation where;
};

/// The annotation of a snapshot's Pod that says how long it runs on from the snapshot.
inline constexpr const char* kRunsForAnnotation = "tidesim.io/runs-for";

/// A snapshot object kept as read (its node stays valid with the document it came from).
struct SnapshotObject {
  std::string name;
  ConfigNode node;
  std::string file;
  /// Its field path in `file` ("items[3]", "document[1]", or its kind for a lone object).
  std::string path;
};

struct KueueSnapshot {
  std::vector<tas::TasNode> nodes;
  std::vector<tas::TasPod> pods;
  std::vector<SnapshotNode> node_objects;                          // nodes[i]'s object
  std::vector<SnapshotPod> pod_objects;                            // pods[i]'s object
  std::map<std::string, std::vector<std::string>> topologies;      // name -> levels
  std::vector<KueueFlavor> flavors;                                // in name order
  std::map<std::string, std::vector<std::string>> cluster_queues;  // name -> flavor names
  std::map<std::string, std::string> local_queues;  // "namespace/name" -> ClusterQueue
  /// AdmissionCheck objects: name -> spec.controllerName.
  std::map<std::string, std::string> admission_checks;
  /// Each ClusterQueue's spec.admissionChecks (on every flavour) and
  /// spec.admissionChecksStrategy.admissionChecks[] (name, onFlavors); the controller is left
  /// empty (it is the AdmissionCheck object's).
  std::map<std::string, std::vector<tas::QueueCheck>> cluster_queue_checks;
  /// Where each Topology ("name") and LocalQueue ("namespace/name") object is.
  std::map<std::string, SourceLocation> topology_where;
  std::map<std::string, SourceLocation> local_queue_where;
  /// The ClusterQueue objects in the order read.
  std::vector<SnapshotObject> cluster_queue_objects;
  /// Volcano's HyperNode objects in the order read.
  std::vector<volcano::HyperNodeSpec> hypernodes;
  std::vector<KueueWorkload> workloads;
};

/// The readers' two primitives (kueue_objects.cpp, kueue_workload.cpp).
namespace kueue_read {
/// Throws the InputError of `field` at `n`'s place in `file`.
[[noreturn]] void fail(const ConfigNode& n, const std::string& file, const std::string& field,
                       const std::string& message);
/// The scalar at `n`; an InputError ("expected a single value") for a list or mapping.
std::string text(const ConfigNode& n, const std::string& file, const std::string& field);
/// The scalar at `parent[key]` (field `path.key`); an InputError when it is missing.
std::string required(const ConfigNode& parent, const char* key, const std::string& file,
                     const std::string& path);
/// A list of tolerations (key, operator Equal or Exists, value, effect); empty when absent.
std::vector<Toleration> tolerations(const ConfigNode& n, const std::string& file,
                                    const std::string& path);
}  // namespace kueue_read

/// Reads every object of `path` (a file or a folder, its files in name order) into one snapshot.
KueueSnapshot read_kueue_snapshot(const std::string& path);

/// The files read_kueue_snapshot reads for `path`: `path` itself, or a folder's .yaml, .yml and
/// .json files in name order (an InputError for a folder with none).
std::vector<std::string> snapshot_files(const std::string& path);

/// The status of a Workload object (`status.admission`, `status.admissionChecks`) into `w`
/// (kube_snapshot_status.cpp).
void read_workload_status(const ConfigNode& status, const std::string& file,
                          const std::string& path, KueueWorkload& w);
/// An AdmissionCheck object into `out.admission_checks`, and a ClusterQueue's checks (its
/// object at `node`) into `out.cluster_queue_checks[name]`.
void read_admission_check(const ConfigNode& node, const std::string& file, const std::string& path,
                          KueueSnapshot& out);
void read_queue_checks(const ConfigNode& node, const std::string& file, const std::string& path,
                       const std::string& name, KueueSnapshot& out);

/// Reads one Workload object (`path` is its field path in `file`, for errors).
KueueWorkload read_workload_object(const ConfigNode& node, const std::string& file,
                                   const std::string& path);

}  // namespace tidesim
