// Resolution of manifests' Jobs and Pods against the PriorityClasses and PodGroups declared with
// them (workloads/manifest.hpp): what Kubernetes' Priority admission plugin and the gang
// schedulers' PodGroup lookups do when the objects are applied to one cluster.
#include <algorithm>
#include <map>
#include <utility>

#include <fmt/core.h>

#include "tidesim/workloads/manifest.hpp"

namespace tidesim::workloads {
namespace {

std::string place(const SourceLocation& w) {
  return fmt::format("{}:{}:{}", w.file, w.line, w.column);
}

const char* api_name(PodGroupApi api) {
  return api == PodGroupApi::kCoscheduling ? "scheduling.x-k8s.io/v1alpha1"
                                           : "scheduling.volcano.sh/v1beta1";
}

// Every class of the cluster by name: the built-ins, then the declared ones (checked).
class ClassRegistry {
 public:
  explicit ClassRegistry(const std::vector<ManifestFile>& files) {
    for (const auto& b : system_priority_classes()) {
      by_name_.emplace(b.name, &b);
    }
    for (const auto& f : files) {
      for (const auto& c : f.priority_classes) {
        add(c);
      }
    }
  }

  // The class `name`, or an InputError at `where`/`field` listing the classes there are.
  const PriorityClassObject& get(const std::string& name, const SourceLocation& where,
                                 const std::string& field) const {
    const auto it = by_name_.find(name);
    if (it == by_name_.end()) {
      std::string known;
      for (const auto& [n, c] : by_name_) {
        known += (known.empty() ? "" : ", ") + n;
      }
      throw InputError(where, field,
                       "no PriorityClass named '" + name +
                           "' (Kubernetes' Priority admission refuses the pod); known: " + known);
    }
    return *it->second;
  }

  const PriorityClassObject* global_default() const { return default_; }

 private:
  void add(const PriorityClassObject& c) {
    const auto [it, added] = by_name_.emplace(c.name, &c);
    if (!added) {
      if (c.name.starts_with("system-")) {
        return;  // a built-in declared as it is (checked when read)
      }
      throw InputError(c.where, "metadata.name",
                       "PriorityClass '" + c.name + "' is declared twice (first at " +
                           place(it->second->where) + ")");
    }
    if (c.global_default) {
      if (default_ != nullptr) {
        // The Priority plugin's validatePriorityClass: "Only one default can exist".
        throw InputError(c.global_default_where, "globalDefault",
                         "PriorityClass " + default_->name + " (" +
                             place(default_->global_default_where) +
                             ") is already marked as default. Only one default can exist");
      }
      default_ = &c;
    }
  }

  std::map<std::string, const PriorityClassObject*> by_name_;
  const PriorityClassObject* default_ = nullptr;
};

// admitPod's refusal of a pod spec that gives a value (`what`: "integer value of priority"),
// `given` at `field`, that differs from the one `computed` from the PriorityClass `class_name`.
template <class T>
[[noreturn]] void refuse_given(const SourceLocation& where, const std::string& field,
                               const char* what, const T& given, const T& computed,
                               const std::string& class_name) {
  throw InputError(where, field,
                   fmt::format("the {} ({}) must not be provided in pod spec; priority admission "
                               "controller computed {} from the PriorityClass '{}'",
                               what, given, computed, class_name));
}

// admitPod of plugin/pkg/admission/priority/admission.go: the pod's class (its own, else the
// globalDefault one) gives its priority and, when the class has one, its preemptionPolicy; a
// priority or policy also written in the pod spec must equal the class's. A Volcano group's class
// stands in for the global default (Volcano orders the job by it; tidesim has one priority per
// pod). With no class at all the pod keeps the spec.priority it gives (Kubernetes would refuse
// any value but 0; tidesim's manifests have always allowed it).
void resolve_priority(JobTemplate& t, const ClassRegistry& classes, const PodGroupObject* group) {
  const PriorityFields& pf = t.priority;
  const PriorityClassObject* own =
      pf.class_name.empty()
          ? nullptr
          : &classes.get(pf.class_name, pf.class_where, pf.path + ".priorityClassName");
  const PriorityClassObject* group_class = nullptr;
  if (group != nullptr && !group->priority_class_name.empty()) {
    group_class = &classes.get(group->priority_class_name, group->priority_class_where,
                               "spec.priorityClassName");
    if (own != nullptr && own->value != group_class->value) {
      throw InputError(
          pf.class_where, pf.path + ".priorityClassName",
          fmt::format("PriorityClass '{}' ({}) differs from '{}' ({}) of the pods' "
                      "Volcano PodGroup '{}': Volcano orders the job by the "
                      "group's class and tidesim keeps one priority per pod; give "
                      "the pods the group's class",
                      own->name, own->value, group_class->name, group_class->value, group->name));
    }
  }
  const PriorityClassObject* c = own != nullptr           ? own
                                 : group_class != nullptr ? group_class
                                                          : classes.global_default();
  if (c == nullptr) {
    return;
  }
  PodSpec& pod = t.pod;
  if (pf.priority_given && pod.priority != c->value) {
    refuse_given(pf.priority_where, pf.path + ".priority", "integer value of priority",
                 pod.priority, c->value, c->name);
  }
  if (pf.policy_given && pod.preemption_policy != c->preemption_policy) {
    refuse_given(pf.policy_where, pf.path + ".preemptionPolicy", "string value of PreemptionPolicy",
                 pod.preemption_policy, c->preemption_policy, c->name);
  }
  pod.priority = c->value;
  pod.preemption_policy = c->preemption_policy;
}

// Coscheduling's minResources as tidesim models it: minMember pods' GPUs (GangSpec::
// min_resources). cpu and memory, when given, must be minMember pods' requests too (what
// training operators fill in); they are not checked at PreFilter (docs/job-scheduling.md).
void check_min_resources(const PodGroupObject& g, const JobTemplate& t) {
  const ResourceList& m = *g.min_resources;
  const Resources& per_pod = t.pod.requests;
  const std::int64_t n = g.min_member;
  const auto refuse = [&](const std::string& why) {
    throw InputError(g.min_resources_where, "spec.minResources",
                     "PodGroup '" + g.name + "' (Job '" + t.name + "'): " + why +
                         "; tidesim models minResources as minMember pods' requests "
                         "(docs/job-scheduling.md)");
  };
  if (!m.amounts.extended.empty()) {
    refuse("'" + m.amounts.extended.begin()->first + "' is not modelled in minResources");
  }
  if (!m.gpus || m.amounts.gpus != n * per_pod.gpus) {
    refuse(fmt::format("{} = {} needs {}: {} = minMember {} x {} per pod", kGpuResource,
                       m.gpus ? std::to_string(m.amounts.gpus) : std::string("absent"),
                       n * per_pod.gpus, kGpuResource, n, per_pod.gpus));
  }
  if (m.cpu && m.amounts.cpu_milli != n * per_pod.cpu_milli) {
    refuse(fmt::format("cpu = {}m is not minMember {} x {}m per pod", m.amounts.cpu_milli, n,
                       per_pod.cpu_milli));
  }
  if (m.memory && m.amounts.memory_bytes != n * per_pod.memory_bytes) {
    refuse(fmt::format("memory = {} bytes is not minMember {} x {} bytes per pod",
                       m.amounts.memory_bytes, n, per_pod.memory_bytes));
  }
}

// The job's GangSpec from its PodGroup.
GangSpec gang_of(const PodGroupObject& g, const JobTemplate& t) {
  GangSpec s;
  if (g.api == PodGroupApi::kVolcano) {
    // tidesim's all-or-nothing mode places every pod of the job or none; Volcano's job is ready
    // once minMember tasks are placed, which is the same only when minMember is all of them.
    if (g.min_member != t.parallelism) {
      throw InputError(g.min_member_where, "spec.minMember",
                       fmt::format("PodGroup '{}': minMember {} differs from the {} pods of Job "
                                   "'{}'; tidesim's all-or-nothing gangs place all of a job's "
                                   "pods, so minMember must be its parallelism",
                                   g.name, g.min_member, t.parallelism, t.name));
    }
    s.mode = GangMode::kAllOrNothing;
    s.min_member = 0;  // every pod of the job
    s.network_topology = g.network_topology;
    if (g.partition_policy) {
      PartitionPolicySpec p = *g.partition_policy;
      if (t.parallelism % p.partition_size != 0) {
        throw InputError(g.sub_group_size_where, "spec.subGroupPolicy[0].subGroupSize",
                         fmt::format("PodGroup '{}': the {} pods of Job '{}' do not split into "
                                     "groups of {} (Volcano's job webhook: replicas must be "
                                     "totalPartitions x partitionSize)",
                                     g.name, t.parallelism, t.name, p.partition_size));
      }
      p.total_partitions = t.parallelism / p.partition_size;
      if (p.min_partitions > p.total_partitions) {
        throw InputError(g.min_sub_groups_where, "spec.subGroupPolicy[0].minSubGroups",
                         fmt::format("PodGroup '{}': minSubGroups {} is more than the {} groups "
                                     "of Job '{}' (the gang would never be valid)",
                                     g.name, p.min_partitions, p.total_partitions, t.name));
      }
      s.partition_policy = p;
    }
    return s;
  }
  if (g.min_member > t.parallelism) {
    throw InputError(g.min_member_where, "spec.minMember",
                     fmt::format("PodGroup '{}': minMember {} is more than the {} pods of Job "
                                 "'{}' (Coscheduling would keep them pending)",
                                 g.name, g.min_member, t.parallelism, t.name));
  }
  s.mode = GangMode::kPermit;
  s.min_member = g.min_member;
  s.schedule_timeout = g.schedule_timeout;
  if (g.min_resources) {
    check_min_resources(g, t);
    s.min_resources = true;
  }
  return s;
}

// The job's gang from the Workload pod group its pods reference (spec.workloadRef). Upstream a pod
// whose Workload or pod group does not exist waits at PreEnqueue forever ("waiting for pods's
// workload ... to appear"); here that is an error, as a missing PodGroup is. One job per
// (workload, pod group, replica key): each replica key is a gang of its own.
void resolve_workload(JobTemplate& t, const std::map<std::string, const WorkloadObject*>& workloads,
                      std::map<std::string, const JobTemplate*>& users) {
  const auto w = workloads.find(t.workload);
  if (w == workloads.end()) {
    throw InputError(t.workload_ref_where, t.workload_ref_field + ".name",
                     "no Workload named '" + t.workload + "' (" + kWorkloadApiVersion +
                         ") in the scenario's manifests");
  }
  const auto& groups = w->second->pod_groups;
  const auto g = std::find_if(groups.begin(), groups.end(), [&](const WorkloadPodGroup& pg) {
    return pg.name == t.workload_pod_group;
  });
  if (g == groups.end()) {
    throw InputError(t.workload_ref_where, t.workload_ref_field + ".podGroup",
                     "pod group \"" + t.workload_pod_group + "\" doesn't exist for a workload \"" +
                         t.workload + "\"");
  }
  const std::string key = t.workload + "/" + t.workload_pod_group + "/" + t.workload_replica_key;
  const auto [user, first] = users.emplace(key, &t);
  if (!first) {
    throw InputError(t.workload_ref_where, t.workload_ref_field,
                     "pod group '" + t.workload_pod_group + "' of Workload '" + t.workload +
                         "' (replica key '" + t.workload_replica_key + "') is already joined by " +
                         user->second->kind + " '" + user->second->name +
                         "'; tidesim's gangs are per job: give each Job its own replica key");
  }
  t.gang = gang_of(*g, t.parallelism);
}

}  // namespace

const std::vector<PriorityClassObject>& system_priority_classes() {
  // pkg/apis/scheduling/types.go: SystemCriticalPriority = 2 x HighestUserDefinablePriority;
  // system-node-critical is 1000 above it.
  static const std::vector<PriorityClassObject> classes = {
      {"system-cluster-critical", 2'000'000'000, false, "PreemptLowerPriority", {}, {}},
      {"system-node-critical", 2'000'001'000, false, "PreemptLowerPriority", {}, {}},
  };
  return classes;
}

void resolve_manifests(std::vector<ManifestFile>& files) {
  const ClassRegistry classes(files);
  std::map<std::pair<PodGroupApi, std::string>, const PodGroupObject*> groups;
  for (const auto& f : files) {
    for (const auto& g : f.pod_groups) {
      const auto [it, added] = groups.emplace(std::pair{g.api, g.name}, &g);
      if (!added) {
        throw InputError(g.where, "metadata.name",
                         std::string("PodGroup '") + g.name + "' (" + api_name(g.api) +
                             ") is declared twice (first at " + place(it->second->where) + ")");
      }
    }
  }
  std::map<std::string, const WorkloadObject*> workloads;
  for (const auto& f : files) {
    for (const auto& w : f.workloads) {
      const auto [it, added] = workloads.emplace(w.name, &w);
      if (!added) {
        throw InputError(w.where, "metadata.name",
                         "Workload '" + w.name + "' is declared twice (first at " +
                             place(it->second->where) + ")");
      }
    }
  }
  std::map<std::string, const JobTemplate*> workload_users;
  std::map<std::pair<PodGroupApi, std::string>, const JobTemplate*> users;
  for (auto& f : files) {
    for (auto& t : f.templates) {
      const PodGroupObject* group = nullptr;
      if (!t.pod_group.empty()) {
        const std::pair key{t.pod_group_api, t.pod_group};
        const auto it = groups.find(key);
        if (it == groups.end()) {
          throw InputError(t.pod_group_where, t.pod_group_field,
                           std::string("no PodGroup named '") + t.pod_group + "' (" +
                               api_name(t.pod_group_api) + ") in the scenario's manifests");
        }
        group = it->second;
        const auto [user, first] = users.emplace(key, &t);
        if (!first) {
          throw InputError(t.pod_group_where, t.pod_group_field,
                           "PodGroup '" + t.pod_group + "' is already joined by " +
                               user->second->kind + " '" + user->second->name + "' (" +
                               place(user->second->pod_group_where) +
                               "); tidesim's gangs are per job: give each Job its own PodGroup");
        }
      }
      resolve_priority(t, classes, group);
      if (group != nullptr) {
        t.gang = gang_of(*group, t);
      }
      if (!t.workload.empty()) {
        resolve_workload(t, workloads, workload_users);
      }
    }
  }
}

}  // namespace tidesim::workloads
