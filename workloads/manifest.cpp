#include "tidesim/workloads/manifest.hpp"

#include <algorithm>
#include <initializer_list>
#include <limits>

#include <fmt/core.h>

#include "tidesim/sim/api/pod_yaml.hpp"
#include "tidesim/sim/engine/checked.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/workloads/network_topology.hpp"

namespace tidesim::workloads {
namespace {

// Marks keys that never change a simulated run as allowed (their values are not read).
void ignore(Fields& f, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    f.get(k);
  }
}

// Rejects keys the simulator cannot honour, with a reason.
void reject(Fields& f, std::initializer_list<const char*> keys, const std::string& why) {
  for (const char* k : keys) {
    if (f.has(k)) {
      throw f.error(f.get(k), k, "not supported: " + why);
    }
  }
}

// The PodGroup the pod metadata `meta` (at `path`) joins: scheduler-plugins' label or Volcano's
// annotation. `pod` holds the labels and annotations already read.
void read_group_reference(const ConfigNode& meta, const std::string& file, const std::string& path,
                          JobTemplate& t) {
  struct Key {
    const char* section;
    const char* key;
    PodGroupApi api;
  };
  for (const Key k : {Key{"labels", kCoschedulingGroupLabel, PodGroupApi::kCoscheduling},
                      Key{"annotations", kVolcanoGroupAnnotation, PodGroupApi::kVolcano},
                      Key{"annotations", kVolcanoGroupAnnotationAlt, PodGroupApi::kVolcano}}) {
    const ConfigNode section = meta[k.section];
    if (!section || !section.is_map() || !section[k.key]) {
      continue;
    }
    const ConfigNode value = section[k.key];
    const std::string field = path + "." + k.section + "." + k.key;
    if (!t.pod_group.empty()) {
      throw InputError(location_of(value, file), field,
                       "the pods already join PodGroup '" + t.pod_group + "' (" +
                           t.pod_group_field + "); a pod belongs to one group");
    }
    t.pod_group = value.scalar();
    t.pod_group_api = k.api;
    t.pod_group_where = location_of(value, file);
    t.pod_group_field = field;
    if (t.pod_group.empty()) {
      throw InputError(t.pod_group_where, field, "names no PodGroup");
    }
  }
}

// The pod spec's workloadRef (k8s.io/api core/v1 WorkloadReference, v1.35: name, podGroup,
// podGroupReplicaKey), when the pod spec `pod_spec` at `path` has one.
void read_workload_ref(const ConfigNode& pod_spec, const std::string& file, const std::string& path,
                       JobTemplate& t) {
  const ConfigNode ref = pod_spec["workloadRef"];
  if (!ref || ref.is_null()) {
    return;
  }
  t.workload_ref_field = path + ".workloadRef";
  Fields f(ref, file, t.workload_ref_field);
  t.workload = f.string("name");
  t.workload_pod_group = f.string("podGroup");
  t.workload_replica_key = f.string("podGroupReplicaKey", "");
  t.workload_ref_where = location_of(ref, file);
  f.finish();
  if (t.workload.empty() || t.workload_pod_group.empty()) {
    throw InputError(t.workload_ref_where, t.workload_ref_field,
                     "name and podGroup must not be empty");
  }
  if (!t.pod_group.empty()) {
    throw InputError(t.workload_ref_where, t.workload_ref_field,
                     "the pods already join PodGroup '" + t.pod_group + "' (" + t.pod_group_field +
                         "); a pod belongs to one group");
  }
}

// Sets where the pod spec `pod_spec` (at `path`) writes its GPU amount: the first container
// whose limits or requests name nvidia.com/gpu (a limit first: a request defaults to it); the pod
// spec itself when none does.
void find_gpu_amount(const ConfigNode& pod_spec, const std::string& file, const std::string& path,
                     JobTemplate& t) {
  t.gpus_where = location_of(pod_spec, file);
  t.gpus_field = path;
  const ConfigNode containers = pod_spec.is_map() ? pod_spec["containers"] : ConfigNode();
  if (!containers || !containers.is_sequence()) {
    return;
  }
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const ConfigNode resources = containers[i].is_map() ? containers[i]["resources"] : ConfigNode();
    if (!resources || !resources.is_map()) {
      continue;
    }
    for (const char* list : {"limits", "requests"}) {
      const ConfigNode amounts = resources[list];
      if (amounts && amounts.is_map() && amounts[kGpuResource]) {
        t.gpus_where = location_of(amounts[kGpuResource], file);
        t.gpus_field =
            fmt::format("{}.containers[{}].resources.{}.{}", path, i, list, kGpuResource);
        return;
      }
    }
  }
}

// Refuses a job whose pods' GPUs, pod GPUs x parallelism, exceed a job's most (kMaxJobGpus),
// exact in 64 bits (a limit near 2^63 times the pods does not wrap), at the GPU amount's place.
void check_job_gpus(const JobTemplate& t) {
  const std::optional<std::int64_t> total = checked_mul(t.pod.requests.gpus, t.parallelism);
  if (!total || *total > kMaxJobGpus) {
    throw InputError(t.gpus_where, t.gpus_field,
                     fmt::format("{} GPUs per pod x {} pod(s) is more than a job may ask ({} GPUs)",
                                 t.pod.requests.gpus, t.parallelism, kMaxJobGpus));
  }
}

JobTemplate parse_job_or_pod(Fields& top, const ConfigNode& doc, const std::string& file) {
  JobTemplate t;
  t.where = location_of(doc, file);
  t.kind = top.string("kind");
  PodSpec& pod = t.pod;
  if (top.has("metadata")) {
    // An object's own labels and annotations belong to the pod only for a Pod.
    read_pod_metadata(top.get("metadata"), file, "metadata", PodReadMode::kManifest, &t.name,
                      t.kind == "Pod" ? &pod : nullptr);
    if (t.kind == "Pod") {
      read_group_reference(top.get("metadata"), file, "metadata", t);
    }
  }
  ignore(top, {"status"});
  if (t.kind == "Pod") {
    read_pod_spec(top.require("spec"), file, "spec", PodReadMode::kManifest, pod, &t.priority);
    find_gpu_amount(top.require("spec"), file, "spec", t);
    read_workload_ref(top.require("spec"), file, "spec", t);
    t.parallelism = 1;
    t.completions = 1;
    t.backoff_limit = 0;
  } else {
    Fields spec(top.require("spec"), file, "spec");
    t.parallelism = static_cast<int>(spec.integer("parallelism", 1, 1, 100'000));
    t.completions = static_cast<int>(spec.integer("completions", t.parallelism, 1, 100'000));
    t.backoff_limit = static_cast<int>(spec.integer("backoffLimit", 6, 0, 1'000'000));
    Fields tmpl(spec.require("template"), file, "spec.template");
    if (tmpl.has("metadata")) {
      read_pod_metadata(tmpl.get("metadata"), file, "spec.template.metadata",
                        PodReadMode::kManifest, nullptr, &pod);
      read_group_reference(tmpl.get("metadata"), file, "spec.template.metadata", t);
    }
    const ConfigNode pod_spec = tmpl.require("spec");
    read_pod_spec(pod_spec, file, "spec.template.spec", PodReadMode::kManifest, pod, &t.priority);
    find_gpu_amount(pod_spec, file, "spec.template.spec", t);
    read_workload_ref(pod_spec, file, "spec.template.spec", t);
    tmpl.finish();
    // A Job's pods restart Never or OnFailure (the API server rejects Always). The seed's
    // manifests set none: tidesim applies Never, the Job controller's own replacement
    // (docs/model-workloads.md, "Restarts").
    if (pod.restart_policy == "Always") {
      Fields ps(pod_spec, file, "spec.template.spec");
      throw ps.error(ps.get("restartPolicy"), "restartPolicy",
                     "a Job's pods must restart Never or OnFailure, not Always");
    }
    t.restart_policy =
        pod.restart_policy == "OnFailure" ? RestartPolicy::kOnFailure : RestartPolicy::kNever;
    reject(spec,
           {"podFailurePolicy", "successPolicy", "backoffLimitPerIndex", "maxFailedIndexes",
            "podReplacementPolicy"},
           "only backoffLimit governs restarts in the simulator");
    ignore(spec, {"activeDeadlineSeconds", "ttlSecondsAfterFinished", "completionMode", "selector",
                  "manualSelector", "suspend", "managedBy"});
    spec.finish();
    // The Job controller labels its pods with the job's name.
    if (!t.name.empty()) {
      pod.labels.emplace("job-name", t.name);
      pod.labels.emplace("batch.kubernetes.io/job-name", t.name);
    }
  }
  pod.name = t.name;
  top.finish();
  check_job_gpus(t);
  return t;
}

// metadata.name of a cluster-scoped or namespaced object other than a Job or Pod (required).
// `where` is set to where the name is written.
std::string object_name(Fields& top, const std::string& file, SourceLocation& where) {
  Fields meta(top.require("metadata"), file, "metadata");
  const std::string name = meta.string("name");
  where = location_of(meta.get("name"), file);
  if (name.empty()) {
    throw meta.error(meta.get("name"), "name", "must not be empty");
  }
  ignore(meta, {"namespace", "labels", "annotations", "uid", "resourceVersion", "generation",
                "creationTimestamp", "managedFields"});
  meta.finish();
  return name;
}

// scheduling.k8s.io/v1 PriorityClass (k8s.io/api scheduling/v1 types.go): value (required),
// globalDefault (false), preemptionPolicy (PreemptLowerPriority, SetDefaults_PriorityClass),
// description (ignored).
PriorityClassObject parse_priority_class(Fields& top, const std::string& file) {
  PriorityClassObject c;
  c.name = object_name(top, file, c.where);
  c.value = static_cast<std::int32_t>(top.integer("value", std::nullopt,
                                                  std::numeric_limits<std::int32_t>::min(),
                                                  std::numeric_limits<std::int32_t>::max()));
  c.global_default = top.boolean("globalDefault", false);
  c.global_default_where = location_of(top.get("globalDefault"), file);
  c.preemption_policy =
      top.choice("preemptionPolicy", "PreemptLowerPriority", {"PreemptLowerPriority", "Never"});
  ignore(top, {"description"});
  // ValidatePriorityClass (pkg/apis/scheduling/validation): "system-" names are reserved for the
  // built-in classes, which must keep their value; other classes stay at or below 1e9.
  if (c.name.starts_with("system-")) {
    const auto& builtin = system_priority_classes();
    const auto it = std::find_if(builtin.begin(), builtin.end(),
                                 [&](const PriorityClassObject& b) { return b.name == c.name; });
    if (it == builtin.end() || it->value != c.value || c.global_default) {
      throw InputError(c.where, "metadata.name",
                       "priority class names with 'system-' prefix are reserved for system use "
                       "only (system-cluster-critical 2000000000, system-node-critical 2000001000, "
                       "globalDefault false)");
    }
  } else if (c.value > kHighestUserDefinablePriority) {
    throw top.error(top.get("value"), "value",
                    fmt::format("maximum allowed value of a user defined priority is {}",
                                kHighestUserDefinablePriority));
  }
  top.finish();
  return c;
}

// volcano-sh/apis scheduling/v1beta1 NetworkTopologySpec in a manifest's camelCase
// (workloads/network_topology.hpp).
NetworkTopologySpec read_network_topology(const ConfigNode& n, const std::string& file,
                                          const std::string& path) {
  Fields t(n, file, path);
  return read_network_topology(t, TierKeys{"highestTierAllowed", "highestTierName"});
}

// A Volcano PodGroup's spec.subGroupPolicy (SubGroupPolicySpec: name, subGroupSize (default 1),
// minSubGroups (default 0), networkTopology, matchLabelKeys, labelSelector), as Volcano's job
// controller writes it for a task's partitionPolicy (job_controller_actions.go
// getSubGroupPolicy). A tidesim job has one task, so one entry, grouping its pods by the
// `volcano.sh/partition-id` label the controller gives pod i (i / subGroupSize).
void read_sub_group_policy(const ConfigNode& n, const std::string& file, const std::string& path,
                           PodGroupObject& g) {
  if (!n.is_sequence() || n.size() != 1) {
    throw InputError(location_of(n, file), path,
                     "expected a list of one entry: a tidesim job has one task (give the "
                     "partition policy of its pods)");
  }
  const std::string at = path + "[0]";
  Fields e(n[0], file, at);
  e.string("name", "");
  reject(e, {"labelSelector"},
         "every pod of a tidesim job belongs to its one task; group them with matchLabelKeys");
  const ConfigNode keys = e.require("matchLabelKeys");
  if (!keys.is_sequence() || keys.size() != 1 || keys[0].scalar() != kPartitionIdLabel) {
    throw e.error(keys, "matchLabelKeys",
                  fmt::format("expected [{}]: the label Volcano's job controller gives a "
                              "partitioned task's pods (tidesim gives its pods no other)",
                              kPartitionIdLabel));
  }
  PartitionPolicySpec p;
  p.partition_size = static_cast<int>(e.integer("subGroupSize", 1, 1, 100'000));
  p.min_partitions = static_cast<int>(e.integer("minSubGroups", 0, 0, 100'000));
  g.sub_group_size_where = location_of(e.has("subGroupSize") ? e.get("subGroupSize") : n[0], file);
  g.min_sub_groups_where = location_of(e.has("minSubGroups") ? e.get("minSubGroups") : n[0], file);
  if (e.has("networkTopology")) {
    p.network_topology =
        read_network_topology(e.get("networkTopology"), file, e.path_of("networkTopology"));
  }
  e.finish();
  g.partition_policy = p;  // total_partitions: the Job's parallelism / subGroupSize (resolve)
}

// A PodGroup of scheduler-plugins (apis/scheduling/v1alpha1 PodGroupSpec: minMember, minResources,
// scheduleTimeoutSeconds) or of Volcano (volcano-sh/apis scheduling/v1beta1 PodGroupSpec:
// minMember, minTaskMember, queue, priorityClassName, minResources).
PodGroupObject parse_pod_group(Fields& top, const std::string& file, PodGroupApi api) {
  PodGroupObject g;
  g.api = api;
  g.name = object_name(top, file, g.where);
  ignore(top, {"status"});
  Fields spec(top.require("spec"), file, "spec");
  // minMember 0 (or absent) makes the group no gang at all (Coscheduling's Permit allows every
  // pod at once; Volcano's gang is ready with no task): refused as a likely mistake.
  g.min_member = static_cast<int>(spec.integer("minMember", std::nullopt, 1, 100'000));
  g.min_member_where = location_of(spec.get("minMember"), file);
  if (spec.has("minResources")) {
    g.min_resources =
        read_resource_list(spec.get("minResources"), file, spec.path_of("minResources"));
    g.min_resources_where = location_of(spec.get("minResources"), file);
  }
  if (api == PodGroupApi::kCoscheduling) {
    // GetWaitTimeDuration (pkg/util/podgroup.go): the group's timeout when given, else the
    // plugin's permitWaitingTimeSeconds (60 s). 0 s would reject every waiting pod at once.
    if (spec.has("scheduleTimeoutSeconds")) {
      g.schedule_timeout = std::chrono::seconds(spec.integer(
          "scheduleTimeoutSeconds", std::nullopt, 1, std::numeric_limits<std::int32_t>::max()));
    }
  } else {
    g.priority_class_name = spec.string("priorityClassName", "");
    g.priority_class_where = location_of(spec.get("priorityClassName"), file);
    const std::string queue = spec.string("queue", "default");
    if (queue != "default") {
      throw spec.error(spec.get("queue"), "queue",
                       "not supported: Volcano queues are not modelled (only 'default'); model "
                       "teams sharing the cluster with Kueue queues (docs/job-scheduling.md)");
    }
    reject(spec, {"minTaskMember"},
           "a tidesim job has one task; its gang is all of the job's pods (partition them with "
           "subGroupPolicy)");
    if (spec.has("networkTopology")) {
      g.network_topology =
          read_network_topology(spec.get("networkTopology"), file, spec.path_of("networkTopology"));
    }
    if (spec.has("subGroupPolicy")) {
      read_sub_group_policy(spec.get("subGroupPolicy"), file, spec.path_of("subGroupPolicy"), g);
    }
  }
  spec.finish();
  top.finish();
  return g;
}

ManifestFile parse_manifest_documents(const std::vector<ConfigNode>& docs,
                                      const std::string& file) {
  ManifestFile out;
  out.file = file;
  for (const auto& doc : docs) {
    if (!doc || doc.is_null()) {
      continue;
    }
    Fields top(doc, file, "");
    const std::string api = top.string("apiVersion");
    const std::string kind = top.string("kind");
    if ((kind == "Job" && api == "batch/v1") || (kind == "Pod" && api == "v1")) {
      out.templates.push_back(parse_job_or_pod(top, doc, file));
    } else if (kind == "PriorityClass" && api == "scheduling.k8s.io/v1") {
      out.priority_classes.push_back(parse_priority_class(top, file));
    } else if (kind == "PodGroup" && api == "scheduling.x-k8s.io/v1alpha1") {
      out.pod_groups.push_back(parse_pod_group(top, file, PodGroupApi::kCoscheduling));
    } else if (kind == "PodGroup" && api == "scheduling.volcano.sh/v1beta1") {
      out.pod_groups.push_back(parse_pod_group(top, file, PodGroupApi::kVolcano));
    } else if (kind == "Workload" && api == kWorkloadApiVersion) {
      out.workloads.push_back(read_workload_object(top, file));
    } else {
      throw top.error(top.get("kind"), "kind",
                      "unsupported kind '" + api + " " + kind +
                          "'; supported: batch/v1 Job, v1 Pod, scheduling.k8s.io/v1 "
                          "PriorityClass, scheduling.x-k8s.io/v1alpha1 PodGroup, "
                          "scheduling.volcano.sh/v1beta1 PodGroup, scheduling.k8s.io/v1alpha1 "
                          "Workload");
    }
  }
  if (out.templates.empty() && out.priority_classes.empty() && out.pod_groups.empty() &&
      out.workloads.empty()) {
    throw InputError(SourceLocation{file, 0, 0}, "", "no manifest in the file");
  }
  return out;
}

std::vector<JobTemplate> resolved_templates(ManifestFile file) {
  if (file.templates.empty()) {
    throw InputError(SourceLocation{file.file, 0, 0}, "", "no Job or Pod in the file");
  }
  std::vector<ManifestFile> files{std::move(file)};
  resolve_manifests(files);
  return std::move(files.front().templates);
}

}  // namespace

ManifestFile parse_manifest_file(const std::string& text, const std::string& name) {
  // A yaml-cpp exception escaping the reader (a bad conversion, say) still names the file.
  return yaml_guard(
      name, [&] { return parse_manifest_documents(load_all_yaml_string(text, name), name); });
}

ManifestFile load_manifest_file(const std::string& path) {
  return yaml_guard(path, [&] { return parse_manifest_documents(load_all_yaml_file(path), path); });
}

std::vector<JobTemplate> parse_manifests(const std::string& text, const std::string& name) {
  return resolved_templates(parse_manifest_file(text, name));
}

std::vector<JobTemplate> load_manifests(const std::string& path) {
  return resolved_templates(load_manifest_file(path));
}

}  // namespace tidesim::workloads
