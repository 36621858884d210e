#pragma once
/// The one reader of Kubernetes v1 Pod fields (metadata, PodSpec, container resources) into
/// PodSpec. `tidesim explain` (policies/kube_objects) reads Pods as the API server prints them;
/// workload manifests (workloads/manifest) read the pod template of a Job or a Pod someone wrote
/// for tidesim. Both go through these functions, so a quantity, a selector or a container means
/// the same thing in both. Every error is an InputError naming file:line:column and the field
/// path under `path`.
#include <set>
#include <string>

#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim {

/// How strictly a Pod is read.
enum class PodReadMode {
  /// A manifest written for tidesim: an unknown key is an error listing the allowed ones, and a
  /// field that would change placement but is not modelled (namespaceSelector, minDomains,
  /// schedulingGates, ...) is an error saying so. priorityClassName is returned through
  /// PriorityFields for the caller to resolve (an error when the caller passes none).
  kManifest,
  /// An object as the API server prints it (`kubectl get -o yaml`): the many keys tidesim does not
  /// read (uid, managedFields, status, volumes, ...) are ignored. Values of the keys it reads are
  /// checked as strictly as in kManifest.
  kServerObject,
};

/// One `requests`, `limits`, `overhead`, `allocatable` or `capacity` mapping. Amounts are
/// Kubernetes quantities (sim/input/units.hpp): cpu in millicores (MilliValue), memory in bytes,
/// nvidia.com/gpu and other extended resources whole numbers. `pods`, `ephemeral-storage` and
/// `hugepages-*` are checked but not modelled (dropped), as the scheduler profiles reject them.
struct ResourceList {
  Resources amounts;
  /// Which modelled keys were present (an explicit "0" counts); extended ones are the keys of
  /// amounts.extended.
  bool cpu = false;
  bool memory = false;
  bool gpus = false;
};

/// Reads a resource mapping; an absent or null node is an empty list.
ResourceList read_resource_list(const ConfigNode& node, const std::string& file,
                                const std::string& path);

/// The priority fields of a PodSpec as written, with where each is written, for the caller that
/// resolves priority classes as Kubernetes' Priority admission plugin does (workloads/manifest).
struct PriorityFields {
  /// spec.priorityClassName; empty when absent.
  std::string class_name;
  SourceLocation class_where;
  /// Whether spec.priority and spec.preemptionPolicy were written (their values are in PodSpec).
  bool priority_given = false;
  SourceLocation priority_where;
  bool policy_given = false;
  SourceLocation policy_where;
  /// The field path of the PodSpec ("spec", "spec.template.spec").
  std::string path;
};

/// Reads object metadata: `*name` (metadata.name, else generateName) when `name` is not null;
/// namespace, labels and annotations into `*pod` when `pod` is not null.
void read_pod_metadata(const ConfigNode& node, const std::string& file, const std::string& path,
                       PodReadMode mode, std::string* name, PodSpec* pod);

/// Reads a v1.PodSpec mapping into `pod`: containers (at least one; per-container requests with
/// requests defaulted to limits, which keys were set, the first container's image and env),
/// initContainers (restartPolicy Always = sidecar), overhead, nodeName, nodeSelector, affinity,
/// tolerations, topologySpreadConstraints, priority, preemptionPolicy, schedulerName. Sets
/// `pod.requests` to pod_requests(pod) and `pod.limits` to the containers' summed limits. With
/// `priority`, priorityClassName and where the priority fields are written go there; without it a
/// kManifest read refuses priorityClassName without priority.
void read_pod_spec(const ConfigNode& node, const std::string& file, const std::string& path,
                   PodReadMode mode, PodSpec& pod, PriorityFields* priority = nullptr);

/// Reads a metav1.LabelSelector mapping (matchLabels, matchExpressions with In, NotIn, Exists,
/// DoesNotExist), as a Pod's selectors are read.
LabelSelector read_label_selector(const ConfigNode& node, const std::string& file,
                                  const std::string& path,
                                  PodReadMode mode = PodReadMode::kManifest);

}  // namespace tidesim
