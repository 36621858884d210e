#pragma once
/// Reads Kubernetes v1 Node and Pod objects (as `kubectl get nodes,pods -o yaml` prints them, a
/// `kind: List`) into NodeSpec/PodSpec, for `tidesim explain`. Only placement-relevant fields are
/// read; the many other fields kubectl prints (uid, managedFields, conditions...) are ignored.
/// A present field with a bad value is an InputError naming file, line and field.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/api/telemetry.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::policies {

/// A node with its annotations (where explain reads node metrics).
struct KubeNode {
  NodeSpec spec;
  std::map<std::string, std::string> annotations;
  /// Where each annotation's value is (file, line, column), and its field path, for errors.
  std::map<std::string, std::pair<SourceLocation, std::string>> annotation_places;
};

/// A pod with its binding (spec.nodeName) and phase.
struct KubePod {
  std::shared_ptr<PodSpec> spec;
  /// status.phase; empty when absent.
  std::string phase;
  /// Where spec.nodeName is written (the pod's place when it has none) and its field path, for
  /// an error about the node it names.
  SourceLocation node_name_where;
  std::string node_name_field;
};

/// The objects of one List file (or one object, or a multi-document file).
struct KubeObjects {
  std::vector<KubeNode> nodes;
  std::vector<KubePod> pods;
};

/// Reads every Node and Pod in `path` (kind List, a single object, or "---" documents); two
/// Nodes of one name are an InputError at the second.
KubeObjects read_kube_objects(const std::string& path);

/// Parses one v1 Pod object; `path` names it in errors.
std::shared_ptr<PodSpec> parse_pod(const ConfigNode& node, const std::string& file,
                                   const std::string& path, std::string* phase = nullptr);
/// Parses one v1 Node object.
KubeNode parse_node(const ConfigNode& node, const std::string& file, const std::string& path);

/// Node annotations explain reads as metrics (all optional; a node with none has no metrics):
/// tidesim.io/gpu-memory-utilization "0.78,0.10,..." (one value in [0, 1] per card of the node's
/// allocatable nvidia.com/gpu), tidesim.io/nvlink-competition-index "0.15",
/// tidesim.io/storage-await-ms "6" or "nvme0n1=6,sdb=3.5" (each device once),
/// tidesim.io/metrics-latency "6s". Returns nullopt when the node carries none of them; throws
/// InputError naming the annotation's place on a bad value, a count of values other than the
/// node's cards, or a device named twice.
std::optional<std::pair<NodeMetrics, Duration>> metrics_from_annotations(const KubeNode& node,
                                                                         const std::string& file);

}  // namespace tidesim::policies
