#include "tidesim/workloads/k8s_workload.hpp"

#include <fmt/core.h>

#include <set>

namespace tidesim::workloads {
namespace {

// IsDNS1123Label: at most 63 lower-case alphanumerics or '-', starting and ending alphanumeric
// (ValidateWorkload checks each pod group's name with it).
bool is_dns_label(const std::string& s) {
  if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-') {
    return false;
  }
  for (const char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
      return false;
    }
  }
  return true;
}

// policy: exactly one of basic and gang (the +oneOf=PolicySelection of PodGroupPolicy).
void read_policy(Fields& g, const std::string& file, WorkloadPodGroup& out) {
  Fields policy(g.require("policy"), file, g.path_of("policy"));
  const bool basic = policy.has("basic");
  const bool gang = policy.has("gang");
  if (basic == gang) {
    throw g.error(g.get("policy"), "policy",
                  basic ? "set only one of basic and gang" : "set one of basic: {} and gang");
  }
  if (basic) {
    Fields b(policy.get("basic"), file, policy.path_of("basic"));
    b.finish();  // BasicSchedulingPolicy has no fields
  } else {
    Fields gf(policy.get("gang"), file, policy.path_of("gang"));
    // GangSchedulingPolicy.MinCount: required, a positive int32.
    out.min_count = static_cast<int>(gf.integer("minCount", std::nullopt, 1, 2'147'483'647));
    out.min_count_where = location_of(gf.get("minCount"), file);
    gf.finish();
  }
  policy.finish();
}

// schedulingConstraints.topology: one {key} (KEP-5732 alpha: a single constraint).
void read_constraints(Fields& g, const std::string& file, WorkloadPodGroup& out) {
  if (!g.has("schedulingConstraints")) {
    return;
  }
  Fields c(g.get("schedulingConstraints"), file, g.path_of("schedulingConstraints"));
  const ConfigNode topology = c.get("topology");
  if (topology && !topology.is_null()) {
    if (!topology.is_sequence()) {
      throw c.error(topology, "topology", "must be a list of {key: LABEL}");
    }
    if (topology.size() > 1) {
      throw c.error(topology, "topology",
                    "at most one topology constraint (KEP-5732: a single constraint)");
    }
    if (topology.size() == 1) {
      Fields t(topology[0], file, c.path_of("topology") + "[0]");
      out.topology_key = t.string("key");
      if (out.topology_key.empty()) {
        throw t.error(t.get("key"), "key", "must name a node label");
      }
      t.finish();
    }
  }
  c.finish();
}

}  // namespace

WorkloadPodGroup read_workload_pod_group(const ConfigNode& n, const std::string& file,
                                         const std::string& path) {
  Fields g(n, file, path);
  WorkloadPodGroup out;
  out.name = g.string("name");
  out.where = location_of(g.get("name"), file);
  out.path = path;
  if (!is_dns_label(out.name)) {
    throw g.error(g.get("name"), "name",
                  "'" + out.name +
                      "' is not a DNS label (lower-case letters, digits and '-', "
                      "at most 63)");
  }
  read_policy(g, file, out);
  read_constraints(g, file, out);
  g.finish();
  return out;
}

WorkloadObject read_workload_object(Fields& top, const std::string& file) {
  WorkloadObject w;
  {
    Fields meta(top.require("metadata"), file, "metadata");
    w.name = meta.string("name");
    w.where = location_of(meta.get("name"), file);
    if (w.name.empty()) {
      throw meta.error(meta.get("name"), "name", "must not be empty");
    }
    for (const char* k : {"namespace", "labels", "annotations", "uid", "resourceVersion",
                          "generation", "creationTimestamp", "managedFields"}) {
      meta.get(k);  // accepted, no effect on scheduling
    }
    meta.finish();
  }
  top.get("status");
  Fields spec(top.require("spec"), file, "spec");
  spec.get("controllerRef");  // a link for tools; no effect on scheduling
  const ConfigNode groups = spec.require("podGroups");
  if (!groups.is_sequence() || groups.size() == 0) {
    throw spec.error(groups, "podGroups", "must list at least one pod group");
  }
  if (groups.size() > static_cast<std::size_t>(kWorkloadMaxPodGroups)) {
    throw spec.error(
        groups, "podGroups",
        fmt::format("at most {} pod groups (WorkloadMaxPodGroups)", kWorkloadMaxPodGroups));
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::string path = fmt::format("spec.podGroups[{}]", i);
    WorkloadPodGroup g = read_workload_pod_group(groups[i], file, path);
    if (!names.insert(g.name).second) {
      throw InputError(g.where, path + ".name", "duplicate pod group name '" + g.name + "'");
    }
    w.pod_groups.push_back(std::move(g));
  }
  spec.finish();
  top.finish();
  return w;
}

std::optional<GangSpec> gang_of(const WorkloadPodGroup& group, int pods) {
  if (!group.min_count) {
    if (!group.topology_key.empty()) {
      throw InputError(group.where, group.path + ".schedulingConstraints",
                       "pod group '" + group.name +
                           "': a topology constraint on a basic pod group is not modelled "
                           "(KEP-5732 checks it only for the pods it sees); use policy.gang");
    }
    return std::nullopt;
  }
  if (pods > 0 && *group.min_count > pods) {
    throw InputError(group.min_count_where, group.path + ".policy.gang.minCount",
                     fmt::format("pod group '{}': minCount {} is more than the job's {} pods; "
                                 "the gang could never form",
                                 group.name, *group.min_count, pods));
  }
  GangSpec s;
  s.mode = GangMode::kPermit;
  s.min_member = *group.min_count;
  s.schedule_timeout = kWorkloadGangTimeout;
  s.topology_key = group.topology_key;
  s.workload_api = true;
  return s;
}

}  // namespace tidesim::workloads
