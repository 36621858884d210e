// The parts of Kueue objects that admission checks and a second scheduling pass read
// (kubernetes-sigs/kueue @ff69552, apis/kueue/v1beta1 and v1beta2): an AdmissionCheck's
// spec.controllerName, a ClusterQueue's spec.admissionChecks and
// spec.admissionChecksStrategy.admissionChecks[] (name, onFlavors), and a Workload's
// status.admission.podSetAssignments[] (flavors, count, delayedTopologyRequest,
// topologyAssignment as levels and domains) and status.admissionChecks[] (name, state,
// podSetUpdates[] with nodeSelector and tolerations).
#include <set>

#include "tidesim/sim/admission/tas_annotations.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/scenario/kube_snapshot.hpp"

namespace tidesim {
namespace {

using kueue_read::fail;
using kueue_read::required;
using kueue_read::text;

std::string one_of(const ConfigNode& n, const std::string& file, const std::string& field,
                   const std::set<std::string>& allowed) {
  const std::string v = text(n, file, field);
  if (!allowed.contains(v)) {
    std::string list;
    for (const std::string& a : allowed) {
      list += (list.empty() ? "" : ", ") + a;
    }
    fail(n, file, field, "expected one of " + list + ", got '" + v + "'");
  }
  return v;
}

std::int32_t count_at(const ConfigNode& n, const std::string& file, const std::string& field) {
  std::int32_t v = 0;
  if (const std::string why = tas::int32_at_least(text(n, file, field), 0, v); !why.empty()) {
    fail(n, file, field, why);
  }
  return v;
}

tas::TopologyAssignment read_assignment(const ConfigNode& n, const std::string& file,
                                        const std::string& path) {
  if (n["slices"]) {
    fail(n["slices"], file, path + ".slices",
         "the compressed (v1beta2) form is not read; give levels and domains");
  }
  tas::TopologyAssignment a;
  for (const ConfigNode& l : sequence_of(n["levels"], file, path + ".levels")) {
    a.levels.push_back(text(l, file, path + ".levels[]"));
  }
  const auto ds = sequence_of(n["domains"], file, path + ".domains");
  for (std::size_t i = 0; i < ds.size(); ++i) {
    const std::string p = path + ".domains[" + std::to_string(i) + "]";
    tas::DomainAssignment d;
    const auto vs = sequence_of(ds[i]["values"], file, p + ".values");
    for (std::size_t v = 0; v < vs.size(); ++v) {
      d.values.push_back(text(vs[v], file, p + ".values[" + std::to_string(v) + "]"));
    }
    if (d.values.size() != a.levels.size()) {
      fail(ds[i], file, p + ".values", "needs one value per level");
    }
    d.count = count_at(ds[i]["count"], file, p + ".count");
    a.domains.push_back(std::move(d));
  }
  return a;
}

KueuePodSetAdmission read_podset_admission(const ConfigNode& n, const std::string& file,
                                           const std::string& path) {
  KueuePodSetAdmission a;
  a.name = required(n, "name", file, path);
  a.flavors = string_map(n["flavors"], file, path + ".flavors");
  if (n["count"]) {
    a.count = count_at(n["count"], file, path + ".count");
  }
  if (n["delayedTopologyRequest"]) {
    a.delayed = one_of(n["delayedTopologyRequest"], file, path + ".delayedTopologyRequest",
                       {"Pending", "Ready"});
  }
  if (n["topologyAssignment"]) {
    a.assignment = read_assignment(n["topologyAssignment"], file, path + ".topologyAssignment");
  }
  return a;
}

tas::CheckState read_check_state(const ConfigNode& n, const std::string& file,
                                 const std::string& path) {
  tas::CheckState c;
  c.name = required(n, "name", file, path);
  if (!n["state"]) {
    fail(n, file, path + ".state", "missing required field");
  }
  c.state = one_of(n["state"], file, path + ".state", {"Pending", "Ready", "Retry", "Rejected"});
  const ConfigNode ups = n["podSetUpdates"];
  const auto items =
      ups ? sequence_of(ups, file, path + ".podSetUpdates") : std::vector<ConfigNode>{};
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string p = path + ".podSetUpdates[" + std::to_string(i) + "]";
    c.updates.push_back(tas::PodSetUpdate{
        .podset = required(items[i], "name", file, p),
        .node_selector = string_map(items[i]["nodeSelector"], file, p + ".nodeSelector"),
        .tolerations = kueue_read::tolerations(items[i]["tolerations"], file, p + ".tolerations")});
  }
  return c;
}

}  // namespace

void read_workload_status(const ConfigNode& status, const std::string& file,
                          const std::string& path, KueueWorkload& w) {
  if (const ConfigNode adm = status["admission"]; adm && !adm.is_null()) {
    std::vector<KueuePodSetAdmission> out;
    const std::string p = path + ".admission.podSetAssignments";
    const auto items = sequence_of(adm["podSetAssignments"], file, p);
    for (std::size_t i = 0; i < items.size(); ++i) {
      out.push_back(read_podset_admission(items[i], file, p + "[" + std::to_string(i) + "]"));
    }
    w.admission = std::move(out);
  }
  if (const ConfigNode checks = status["admissionChecks"]; checks && !checks.is_null()) {
    const std::string p = path + ".admissionChecks";
    const auto items = sequence_of(checks, file, p);
    for (std::size_t i = 0; i < items.size(); ++i) {
      w.checks.push_back(read_check_state(items[i], file, p + "[" + std::to_string(i) + "]"));
    }
  }
}

void read_admission_check(const ConfigNode& node, const std::string& file, const std::string& path,
                          KueueSnapshot& out) {
  const std::string name = required(node["metadata"], "name", file, path + ".metadata");
  out.admission_checks[name] = required(node["spec"], "controllerName", file, path + ".spec");
}

void read_queue_checks(const ConfigNode& node, const std::string& file, const std::string& path,
                       const std::string& name, KueueSnapshot& out) {
  const ConfigNode spec = node["spec"];
  std::vector<tas::QueueCheck>& checks = out.cluster_queue_checks[name];
  if (const ConfigNode all = spec["admissionChecks"]; all && !all.is_null()) {
    const auto items = sequence_of(all, file, path + ".spec.admissionChecks");
    for (std::size_t i = 0; i < items.size(); ++i) {
      checks.push_back(tas::QueueCheck{
          .name = text(items[i], file, path + ".spec.admissionChecks[" + std::to_string(i) + "]"),
          .controller = "",
          .on_flavors = {}});
    }
  }
  const ConfigNode strategy = spec["admissionChecksStrategy"];
  if (!strategy || strategy.is_null()) {
    return;
  }
  if (!checks.empty()) {
    fail(strategy, file, path + ".spec.admissionChecksStrategy",
         "admissionChecks and admissionChecksStrategy cannot both be set");
  }
  const std::string p = path + ".spec.admissionChecksStrategy.admissionChecks";
  const auto rules = sequence_of(strategy["admissionChecks"], file, p);
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const std::string rp = p + "[" + std::to_string(i) + "]";
    tas::QueueCheck c{
        .name = required(rules[i], "name", file, rp), .controller = "", .on_flavors = {}};
    if (const ConfigNode on = rules[i]["onFlavors"]; on && !on.is_null()) {
      const auto fs = sequence_of(on, file, rp + ".onFlavors");
      for (std::size_t f = 0; f < fs.size(); ++f) {
        c.on_flavors.insert(text(fs[f], file, rp + ".onFlavors[" + std::to_string(f) + "]"));
      }
    }
    checks.push_back(std::move(c));
  }
}

}  // namespace tidesim
