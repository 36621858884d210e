#pragma once
/// Kubernetes manifests as job templates: batch/v1 Job and v1 Pod, with the scheduling objects that
/// change how their pods are placed (scheduling.k8s.io/v1 PriorityClass; PodGroups of
/// scheduler-plugins' Coscheduling and of Volcano; Kubernetes' Workload API), one or many YAML
/// documents per file. Fields that change placement are read; fields that cannot change a simulated
/// run (commands, volumes, probes, ...) are accepted and ignored; anything else, and any
/// supported-looking field the simulator cannot honour (namespaceSelector, a Volcano queue, ...),
/// is an InputError naming file, line and field. docs/scenario-workload.md lists them. The pod
/// template is read by the shared Pod reader (sim/api/pod_yaml.hpp, PodReadMode::kManifest).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/api/pod_yaml.hpp"
#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/workloads/job.hpp"
#include "tidesim/workloads/k8s_workload.hpp"

namespace tidesim::workloads {

/// scheduler-plugins' label naming a pod's Coscheduling PodGroup (apis/scheduling/v1alpha1
/// PodGroupLabel).
inline constexpr const char* kCoschedulingGroupLabel = "scheduling.x-k8s.io/pod-group";
/// Volcano's annotation naming a pod's PodGroup (volcano-sh/apis pkg/apis/scheduling/v1beta1
/// KubeGroupNameAnnotationKey; VolcanoGroupNameAnnotationKey is the second).
inline constexpr const char* kVolcanoGroupAnnotation = "scheduling.k8s.io/group-name";
inline constexpr const char* kVolcanoGroupAnnotationAlt = "scheduling.volcano.sh/group-name";

/// The highest value a user-defined PriorityClass may have (Kubernetes
/// pkg/apis/scheduling/types.go HighestUserDefinablePriority).
inline constexpr std::int32_t kHighestUserDefinablePriority = 1'000'000'000;

/// A scheduling.k8s.io/v1 PriorityClass.
struct PriorityClassObject {
  std::string name;
  std::int32_t value = 0;
  bool global_default = false;
  /// "PreemptLowerPriority" (the API default) or "Never".
  std::string preemption_policy = "PreemptLowerPriority";
  /// Where metadata.name and globalDefault are written.
  SourceLocation where;
  SourceLocation global_default_where;
};

/// Kubernetes' built-in classes, which every cluster has (pkg/apis/scheduling/types.go):
/// system-cluster-critical 2000000000 and system-node-critical 2000001000.
const std::vector<PriorityClassObject>& system_priority_classes();

/// Which PodGroup API an object (and the pods joining it) uses.
enum class PodGroupApi {
  /// scheduling.x-k8s.io/v1alpha1 (kubernetes-sigs/scheduler-plugins, Coscheduling): permit mode.
  kCoscheduling,
  /// scheduling.volcano.sh/v1beta1 (Volcano): all-or-nothing mode.
  kVolcano,
};

/// A PodGroup object.
struct PodGroupObject {
  PodGroupApi api = PodGroupApi::kCoscheduling;
  std::string name;
  /// spec.minMember (at least 1).
  int min_member = 1;
  SourceLocation min_member_where;
  /// Coscheduling: spec.scheduleTimeoutSeconds, else the plugin's default permitWaitingTimeSeconds.
  Duration schedule_timeout = std::chrono::seconds(60);
  /// spec.minResources as given (nullopt: absent).
  std::optional<ResourceList> min_resources;
  SourceLocation min_resources_where;
  /// Volcano: spec.priorityClassName ("" when absent).
  std::string priority_class_name;
  SourceLocation priority_class_where;
  /// Volcano: spec.networkTopology (nullopt: absent).
  std::optional<NetworkTopologySpec> network_topology;
  /// Volcano: spec.subGroupPolicy's one entry (nullopt: absent); total_partitions is set from the
  /// Job's parallelism when the two are joined.
  std::optional<PartitionPolicySpec> partition_policy;
  SourceLocation sub_group_size_where;
  SourceLocation min_sub_groups_where;
  /// Where metadata.name is written.
  SourceLocation where;
};

/// What one Job or Pod manifest describes.
struct JobTemplate {
  /// "Job" or "Pod".
  std::string kind;
  /// metadata.name (or generateName for a Job/Pod that only has that).
  std::string name;
  /// The pod template: containers, init containers and overhead with the effective request
  /// (pod_requests), labels and annotations of the pod template, first container's env and
  /// image, selectors, affinity, tolerations, priority, schedulerName. After resolve_manifests,
  /// priority and preemptionPolicy are the ones the Priority admission plugin would give.
  PodSpec pod;
  /// Job spec.parallelism (pods running at once); 1 for a Pod.
  int parallelism = 1;
  /// Job spec.completions (defaults to parallelism); 1 for a Pod.
  int completions = 1;
  /// Job spec.backoffLimit (default 6); 0 for a Pod (a bare pod is not restarted by a Job
  /// controller).
  int backoff_limit = 6;
  /// The Job's restartPolicy (Never when the template sets none; a bare Pod: Never).
  RestartPolicy restart_policy = RestartPolicy::kNever;
  /// The pod's priority fields as written (priorityClassName and where each is written).
  PriorityFields priority;
  /// The PodGroup the pods join ("" for none), the API that names it (label or annotation) and
  /// where, with the field path of the label or annotation.
  std::string pod_group;
  PodGroupApi pod_group_api = PodGroupApi::kCoscheduling;
  SourceLocation pod_group_where;
  std::string pod_group_field;
  /// The pod template's spec.workloadRef (KEP-4671): the Workload, its pod group and replica
  /// key; empty `workload` for none. `workload_ref_field` is its field path.
  std::string workload;
  std::string workload_pod_group;
  std::string workload_replica_key;
  SourceLocation workload_ref_where;
  std::string workload_ref_field;
  /// The job's gang from its PodGroup or Workload, set by resolve_manifests.
  std::optional<GangSpec> gang;
  /// Where the document starts.
  SourceLocation where;
  /// Where the pod's GPU amount (nvidia.com/gpu) is written and its field path; the pod spec's
  /// place when it asks none. For errors about the job's GPUs found later (a scenario's replicas).
  SourceLocation gpus_where;
  std::string gpus_field;
};

/// The objects of one manifest file.
struct ManifestFile {
  std::string file;
  std::vector<JobTemplate> templates;
  std::vector<PriorityClassObject> priority_classes;
  std::vector<PodGroupObject> pod_groups;
  /// scheduling.k8s.io/v1alpha1 Workloads.
  std::vector<WorkloadObject> workloads;
};

/// Reads every document of a YAML text ("---" separated) without resolving priorities or groups;
/// empty documents are skipped, and at least one object is required.
ManifestFile parse_manifest_file(const std::string& text, const std::string& name);
/// The same for a file on disk.
ManifestFile load_manifest_file(const std::string& path);

/// Resolves the Jobs and Pods of `files` against the PriorityClasses and PodGroups of all of them,
/// as objects of one cluster: each pod's priority and preemptionPolicy as Kubernetes' Priority
/// admission plugin gives them, and each job's GangSpec from its PodGroup. Also checks the classes
/// (reserved names, values, at most one globalDefault) and groups (unique names, one Job each).
/// Every error names the file, line, column and field.
void resolve_manifests(std::vector<ManifestFile>& files);

/// Reads and resolves every document of a YAML text; at least one Job or Pod is required.
std::vector<JobTemplate> parse_manifests(const std::string& text, const std::string& name);

/// Reads and resolves every document of a manifest file.
std::vector<JobTemplate> load_manifests(const std::string& path);

}  // namespace tidesim::workloads
