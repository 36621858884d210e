#pragma once
/// The `cluster.snapshot` section (docs/scenarios.md): a scenario's starting cluster read from
/// Kubernetes objects as `kubectl get nodes,pods -A -o yaml` writes them, through the one
/// snapshot reader (sim/scenario/kube_snapshot.hpp) that `tidesim admit` uses too. Each Node
/// becomes one node of the cluster; each Pod bound to one of them and not finished is bound
/// there when the run starts and holds its requests until its `tidesim.io/runs-for` (else the
/// section's `runs_for`, else the end of the run).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim {

struct KueueSnapshot;

/// One Node of the snapshot as the cluster builds it.
struct SnapshotNodeConfig {
  std::string name;
  /// The catalogue's GPU model ("" for a node without nvidia.com/gpu).
  std::string gpu_model;
  /// status.allocatable nvidia.com/gpu.
  int gpus = 0;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  std::map<std::string, std::string> labels;
  /// spec.taints, with node.kubernetes.io/not-ready:NoSchedule added to a node whose Ready
  /// condition is not True (as the node lifecycle controller taints it).
  std::vector<Taint> taints;
  bool unschedulable = false;
  SourceLocation where;
};

/// A Pod of the snapshot bound to one of its nodes, bound there at the start of every run.
struct RunningPod {
  std::string node;
  std::shared_ptr<const PodSpec> pod;
  /// How long it keeps its node's capacity from the start; nullopt: to the end of the run.
  std::optional<Duration> runs_for;
  SourceLocation where;
};

/// The section, read.
struct ClusterSnapshotConfig {
  /// The file or folder read, resolved against the scenario's folder.
  std::string path;
  /// `topology`: one topology for every node with GPUs; "" for `pcie-<gpus>`.
  std::string topology;
  std::vector<SnapshotNodeConfig> nodes;
  std::vector<RunningPod> pods;
  /// The snapshot's Kueue objects (Topology, ResourceFlavor, ClusterQueue, LocalQueue) and
  /// Volcano HyperNodes, for a policy's `queues: {from_snapshot: true}` and `hypernodes:
  /// {from_snapshot: true}` (its nodes and pods are not kept here).
  std::shared_ptr<const KueueSnapshot> objects;
  /// Pods left out because their node is not in the snapshot, as a warning (empty when none).
  std::vector<std::string> warnings;
  SourceLocation where;
};

/// Reads the section `node` (a path, or a mapping with `file`, `gpu`, `gpu_models`, `topology`,
/// `runs_for`) of scenario `file` and the snapshot it names. Throws InputError with file, line,
/// column and field: in the section, or in the snapshot's objects.
ClusterSnapshotConfig parse_cluster_snapshot(const ConfigNode& node, const std::string& file,
                                             const std::string& folder);

}  // namespace tidesim
