#pragma once
/// Kubernetes-shaped API objects: what the API server holds about pods and nodes. Workload readers
/// produce them; policies read them. Maps are std::map so iteration order is fixed.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/api/extended_resources.hpp"

namespace tidesim {

/// The extended resource name the NVIDIA device plugin advertises.
inline constexpr const char* kGpuResource = "nvidia.com/gpu";

/// Requests or capacities. CPU in millicores, memory in bytes, GPUs in device-plugin units
/// (whole cards, or time-slicing replicas). `gpu_milli` (0-1000) is a fractional share of one
/// card for GPU-sharing pods (openb's gpu_milli); 0 when unused. `extended` holds other
/// extended resources by name, in name order (a flat map with interned names:
/// sim/api/extended_resources.hpp).
struct Resources {
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t gpus = 0;
  std::int64_t gpu_milli = 0;
  ExtendedResources extended;

  Resources& operator+=(const Resources& o);
  Resources& operator-=(const Resources& o);
  friend bool operator==(const Resources&, const Resources&) = default;
};

/// Taint effects and toleration operators use Kubernetes' spellings.
struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule | PreferNoSchedule | NoExecute
  friend bool operator==(const Taint&, const Taint&) = default;
};

struct Toleration {
  std::string key;           // empty with operator Exists: tolerates everything
  std::string op = "Equal";  // Equal | Exists
  std::string value;
  std::string effect;  // empty: all effects
  friend bool operator==(const Toleration&, const Toleration&) = default;
};

/// One requirement of a label or node selector. Operators: In, NotIn, Exists, DoesNotExist, Gt, Lt.
struct SelectorRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
  friend bool operator==(const SelectorRequirement&, const SelectorRequirement&) = default;
};

/// metav1.LabelSelector: all of match_labels and all of match_expressions must hold.
struct LabelSelector {
  std::map<std::string, std::string> match_labels;
  std::vector<SelectorRequirement> match_expressions;
  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;
};

/// A node selector term: all requirements must hold (terms are ORed).
struct NodeSelectorTerm {
  std::vector<SelectorRequirement> match_expressions;
  std::vector<SelectorRequirement> match_fields;  // only metadata.name is supported
  friend bool operator==(const NodeSelectorTerm&, const NodeSelectorTerm&) = default;
};

struct PreferredSchedulingTerm {
  std::int32_t weight = 0;  // 1-100
  NodeSelectorTerm preference;
  friend bool operator==(const PreferredSchedulingTerm&, const PreferredSchedulingTerm&) = default;
};

struct NodeAffinity {
  std::vector<NodeSelectorTerm> required;  // requiredDuringSchedulingIgnoredDuringExecution
  std::vector<PreferredSchedulingTerm> preferred;
  friend bool operator==(const NodeAffinity&, const NodeAffinity&) = default;
};

struct PodAffinityTerm {
  LabelSelector label_selector;
  std::string topology_key;
  std::vector<std::string> namespaces;  // empty: the pod's own namespace
  friend bool operator==(const PodAffinityTerm&, const PodAffinityTerm&) = default;
};

struct WeightedPodAffinityTerm {
  std::int32_t weight = 0;  // 1-100
  PodAffinityTerm term;
  friend bool operator==(const WeightedPodAffinityTerm&, const WeightedPodAffinityTerm&) = default;
};

/// Pod affinity or anti-affinity.
struct PodAffinity {
  std::vector<PodAffinityTerm> required;
  std::vector<WeightedPodAffinityTerm> preferred;
  friend bool operator==(const PodAffinity&, const PodAffinity&) = default;
};

struct TopologySpreadConstraint {
  std::int32_t max_skew = 1;
  std::string topology_key;
  std::string when_unsatisfiable = "DoNotSchedule";  // DoNotSchedule | ScheduleAnyway
  LabelSelector label_selector;
  friend bool operator==(const TopologySpreadConstraint&,
                         const TopologySpreadConstraint&) = default;
};

/// One container's resources (v1.Container.resources). `requests` already holds Kubernetes' API
/// defaulting (a key with a limit and no request takes the limit). `cpu_set` / `memory_set` say
/// whether the requests list has the key at all: an explicit `cpu: "0"` is set (and stays 0 for
/// scoring); a missing key gets kube-scheduler's non-zero default.
struct Container {
  std::string name;
  Resources requests;
  Resources limits;
  bool cpu_set = false;
  bool memory_set = false;
  /// An init container with restartPolicy Always (a sidecar): it keeps running beside the
  /// regular containers.
  bool restartable = false;
  friend bool operator==(const Container&, const Container&) = default;
};

/// What the scheduler knows about a pod (the v1.Pod fields that matter for placement).
struct PodSpec {
  std::string name;
  std::string namespace_name = "default";
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::map<std::string, std::string> env;  // first container's env
  std::string image;                       // first container's image
  std::string scheduler_name = "default-scheduler";
  std::int32_t priority = 0;
  /// spec.preemptionPolicy: "PreemptLowerPriority" (Kubernetes' default) or "Never".
  std::string preemption_policy = "PreemptLowerPriority";
  /// The effective request (what the Fit filter checks and the node's `requested` sums):
  /// pod_requests(*this) when `containers` is set (the sum over containers, at least each init
  /// container, plus overhead); set directly for a pod built without containers.
  Resources requests;
  Resources limits;  // summed over containers
  /// spec.containers, spec.initContainers, spec.overhead as read from a Pod or Job manifest.
  /// nullopt for a pod built without a container list (a scenario's inline pod, a trace row): it
  /// counts as ONE container whose requests are `requests` and whose set keys are the non-zero
  /// ones (so a missing or zero CPU/memory gets the non-zero default). An empty vector is a pod
  /// with no containers at all (kube-scheduler's own tests use them): it requests nothing.
  /// Code that rewrites `requests` must reset `containers`, `init_containers` and `overhead`.
  std::optional<std::vector<Container>> containers;
  std::vector<Container> init_containers;
  Resources overhead;
  std::map<std::string, std::string> node_selector;
  std::string node_name;  // spec.nodeName, if pinned
  NodeAffinity node_affinity;
  PodAffinity pod_affinity;
  PodAffinity pod_anti_affinity;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread;
  /// spec.restartPolicy as written: "Always", "OnFailure", "Never", or "" when unset.
  std::string restart_policy;
  friend bool operator==(const PodSpec&, const PodSpec&) = default;
};

/// What the API server knows about a node.
struct NodeSpec {
  std::string name;
  std::map<std::string, std::string> labels;  // includes kubernetes.io/hostname
  std::vector<Taint> taints;
  bool unschedulable = false;
  Resources allocatable;
  friend bool operator==(const NodeSpec&, const NodeSpec&) = default;
};

/// Which requests to sum (k8s.io/component-helpers resource.PodResourcesOptions).
enum class RequestKind {
  kEffective,  ///< as written (after API defaulting): what Filter and BalancedAllocation use
  kNonZero,    ///< a CPU or memory key a container does not set counts as 100m / 200Mi
};

/// Defaults kube-scheduler assumes for a container with no CPU / memory request when scoring
/// (pkg/scheduler/util/pod_resources.go: DefaultMilliCPURequest, DefaultMemoryRequest).
inline constexpr std::int64_t kDefaultMilliCpuRequest = 100;
inline constexpr std::int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;

/// The pod's request, as k8s.io/component-helpers resource.PodRequests computes it: the sum over
/// `containers` and restartable (sidecar) init containers; then, for each init container in
/// order, its request plus the sidecars started before it; the maximum of the two per resource;
/// plus `overhead`. With kNonZero, each container (and init container) that does not set CPU or
/// memory counts kDefaultMilliCpuRequest / kDefaultMemoryRequest for it
/// (NonMissingContainerRequests); the defaults touch only CPU and memory, so the other resources
/// of a kNonZero result are `pod.requests`' own. A pod without a container list is one container
/// (see PodSpec::containers). This is the one place non-zero requests are computed.
Resources pod_requests(const PodSpec& pod, RequestKind kind = RequestKind::kEffective);

/// Forgets how `pod`'s request is made up (containers, init containers, overhead), keeping
/// `requests` as it is: for code about to rewrite `requests`.
void drop_containers(PodSpec& pod);

/// True when `labels` satisfy `selector` (metav1.LabelSelectorAsSelector semantics; an empty
/// selector matches everything).
bool matches(const LabelSelector& selector, const std::map<std::string, std::string>& labels);
/// True when `labels` satisfy every requirement (Gt/Lt compare integers).
bool matches(const std::vector<SelectorRequirement>& requirements,
             const std::map<std::string, std::string>& labels);
/// True when `toleration` tolerates `taint` (v1 helper ToleratesTaint).
bool tolerates(const Toleration& toleration, const Taint& taint);

}  // namespace tidesim
