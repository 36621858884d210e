#pragma once
/// Reads a cluster snapshot and a pending Kueue Workload as `kubectl get -o yaml` prints them, for
/// `tidesim admit` (docs/topology-aware.md). A snapshot is a file or a folder of .yaml/.yml/.json
/// files; each file is one object, a `kind: List` (or NodeList, PodList, ...), or several
/// "---" documents. Read kinds: Node (labels, status.allocatable with `pods`, spec.taints,
/// spec.unschedulable, the Ready condition), Pod (spec.nodeName, container requests,
/// status.phase), Kueue's Topology (spec.levels[].nodeLabel), ResourceFlavor (spec.nodeLabels,
/// spec.tolerations, spec.topologyName), ClusterQueue (spec.resourceGroups[].flavors[].name),
/// LocalQueue (spec.clusterQueue), Workload (spec.queueName, spec.podSets[] with count,
/// template and topologyRequest, in kueue.x-k8s.io/v1beta1 or v1beta2; a PodSet without
/// topologyRequest takes it from its template's `kueue.x-k8s.io/podset-*` annotations as Kueue's
/// jobframework does). Other kinds are ignored. Fields tidesim does not read are ignored; a read
/// field with a bad value is an InputError naming file, line, column and field.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/admission/tas_model.hpp"
#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim::app {

struct KueueFlavor {
  std::string name;
  std::map<std::string, std::string> node_labels;
  std::vector<Toleration> tolerations;
  std::optional<std::string> topology_name;
  SourceLocation where;
};

struct KueueWorkload {
  std::string name;
  std::string namespace_name = "default";
  std::string queue_name;
  std::vector<tas::TasPodSet> podsets;
  SourceLocation where;
};

struct KueueSnapshot {
  std::vector<tas::TasNode> nodes;
  std::vector<tas::TasPod> pods;
  std::map<std::string, std::vector<std::string>> topologies;      // name -> levels
  std::vector<KueueFlavor> flavors;                                // in name order
  std::map<std::string, std::vector<std::string>> cluster_queues;  // name -> flavor names
  std::map<std::string, std::string> local_queues;  // "namespace/name" -> ClusterQueue
  std::vector<KueueWorkload> workloads;
};

/// The readers' two primitives (kueue_objects.cpp, kueue_workload.cpp).
namespace kueue_read {
/// Throws the InputError of `field` at `n`'s place in `file`.
[[noreturn]] void fail(const ConfigNode& n, const std::string& file, const std::string& field,
                       const std::string& message);
/// The scalar at `n`; an InputError ("expected a single value") for a list or mapping.
std::string text(const ConfigNode& n, const std::string& file, const std::string& field);
}  // namespace kueue_read

/// Reads every object of `path` (a file or a folder, its files in name order) into one snapshot.
KueueSnapshot read_kueue_snapshot(const std::string& path);

/// Reads one Workload object (`path` is its field path in `file`, for errors).
KueueWorkload read_workload_object(const ConfigNode& node, const std::string& file,
                                   const std::string& path);

}  // namespace tidesim::app
