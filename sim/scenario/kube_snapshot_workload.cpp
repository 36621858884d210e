// A Kueue Workload object (kueue.x-k8s.io v1beta1 or v1beta2, apis/kueue/*/workload_types.go at
// kubernetes-sigs/kueue @ff69552): spec.queueName and spec.podSets[] with name, count, the pod
// template and topologyRequest; a PodSet without topologyRequest takes it from its template's
// annotations as Kueue's jobframework (pkg/controller/jobframework/tas.go) builds it.
#include <utility>

#include "tidesim/sim/admission/tas_annotations.hpp"
#include "tidesim/sim/api/pod_yaml.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/scenario/kube_snapshot.hpp"

namespace tidesim {
namespace {

using kueue_read::fail;
using kueue_read::text;

std::int32_t integer(const ConfigNode& n, const std::string& file, const std::string& field,
                     std::int32_t min) {
  std::int32_t v = 0;
  if (const std::string why = tas::int32_at_least(text(n, file, field), min, v); !why.empty()) {
    fail(n, file, field, why);
  }
  return v;
}

std::vector<tas::SliceLayer> read_layers(const ConfigNode& n, const std::string& file,
                                         const std::string& path) {
  std::vector<tas::SliceLayer> out;
  const auto items = sequence_of(n, file, path);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string f = path + "[" + std::to_string(i) + "]";
    if (!items[i]["topology"] || !items[i]["size"]) {
      fail(items[i], file, f, "each layer needs topology and size");
    }
    out.push_back(tas::SliceLayer{.topology = text(items[i]["topology"], file, f + ".topology"),
                                  .size = integer(items[i]["size"], file, f + ".size", 1)});
  }
  if (out.empty() || out.size() > 3) {
    fail(n, file, path, "topology constraints must contain between 1 and 3 entries");
  }
  return out;
}

tas::TopologyRequest read_request(const ConfigNode& n, const std::string& file,
                                  const std::string& path) {
  tas::TopologyRequest r;
  if (n["required"]) {
    r.required = text(n["required"], file, path + ".required");
  }
  if (n["preferred"]) {
    r.preferred = text(n["preferred"], file, path + ".preferred");
  }
  if (n["unconstrained"]) {
    const std::string v = text(n["unconstrained"], file, path + ".unconstrained");
    if (v != "true" && v != "false") {
      fail(n["unconstrained"], file, path + ".unconstrained", "expected true or false");
    }
    r.unconstrained = v == "true";
  }
  if (n["podSetSliceRequiredTopology"]) {
    r.slice_topology =
        text(n["podSetSliceRequiredTopology"], file, path + ".podSetSliceRequiredTopology");
  }
  if (n["podSetSliceSize"]) {
    r.slice_size = integer(n["podSetSliceSize"], file, path + ".podSetSliceSize", 1);
  }
  if (n["podSetGroupName"]) {
    r.group = text(n["podSetGroupName"], file, path + ".podSetGroupName");
  }
  if (n["podsetSliceRequiredTopologyConstraints"]) {
    r.slice_layers = read_layers(n["podsetSliceRequiredTopologyConstraints"], file,
                                 path + ".podsetSliceRequiredTopologyConstraints");
  }
  return r;
}

// The template's PodSet annotations through the one reader runs use too; an error is reported
// at the annotation.
std::optional<tas::TopologyRequest> request_from_annotations(const PodSpec& pod,
                                                             const ConfigNode& annotations,
                                                             const std::string& file,
                                                             const std::string& path) {
  try {
    return tas::request_from_annotations(pod.annotations);
  } catch (const tas::TasAnnotationError& e) {
    fail(annotations[e.annotation()], file, path + "." + e.annotation(), e.message());
  }
}

tas::TasPodSet read_podset(const ConfigNode& n, const std::string& file, const std::string& path) {
  tas::TasPodSet ps;
  if (!n["name"]) {
    fail(n, file, path + ".name", "missing required field");
  }
  ps.name = text(n["name"], file, path + ".name");
  ps.count = n["count"] ? integer(n["count"], file, path + ".count", 0) : 1;
  const ConfigNode tmpl = n["template"];
  if (!tmpl || !tmpl["spec"]) {
    fail(n, file, path + ".template.spec", "missing required field");
  }
  PodSpec pod;
  if (tmpl["metadata"]) {
    read_pod_metadata(tmpl["metadata"], file, path + ".template.metadata",
                      PodReadMode::kServerObject, nullptr, &pod);
  }
  read_pod_spec(tmpl["spec"], file, path + ".template.spec", PodReadMode::kServerObject, pod);
  const Resources r = pod_requests(pod);
  if (r.cpu_milli != 0) {
    ps.requests["cpu"] = r.cpu_milli;
  }
  if (r.memory_bytes != 0) {
    ps.requests["memory"] = r.memory_bytes;
  }
  if (r.gpus != 0) {
    ps.requests[kGpuResource] = r.gpus;
  }
  for (const auto& [name, amount] : r.extended) {
    ps.requests[name] = amount;
  }
  ps.tolerations = pod.tolerations;
  ps.node_selector = pod.node_selector;
  ps.required_affinity = pod.node_affinity.required;
  ps.preferred_affinity = pod.node_affinity.preferred;
  if (n["topologyRequest"]) {
    ps.topology = read_request(n["topologyRequest"], file, path + ".topologyRequest");
  } else if (tmpl["metadata"] && tmpl["metadata"]["annotations"]) {
    ps.topology = request_from_annotations(pod, tmpl["metadata"]["annotations"], file,
                                           path + ".template.metadata.annotations");
  }
  return ps;
}

}  // namespace

KueueWorkload read_workload_object(const ConfigNode& node, const std::string& file,
                                   const std::string& path) {
  KueueWorkload w;
  w.where = location_of(node, file);
  const ConfigNode meta = node["metadata"];
  if (meta && meta["name"]) {
    w.name = text(meta["name"], file, path + ".metadata.name");
  }
  if (meta && meta["namespace"]) {
    w.namespace_name = text(meta["namespace"], file, path + ".metadata.namespace");
  }
  const ConfigNode spec = node["spec"];
  if (!spec || !spec["podSets"]) {
    fail(node, file, path + ".spec.podSets", "missing required field");
  }
  if (spec["queueName"]) {
    w.queue_name = text(spec["queueName"], file, path + ".spec.queueName");
  }
  const auto sets = sequence_of(spec["podSets"], file, path + ".spec.podSets");
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const std::string p = path + ".spec.podSets[" + std::to_string(i) + "]";
    w.podsets.push_back(read_podset(sets[i], file, p));
    w.min_counts.push_back(w.podsets.back().count);
    if (sets[i]["minCount"]) {
      const std::int32_t min = integer(sets[i]["minCount"], file, p + ".minCount", 0);
      if (min > w.podsets.back().count) {
        fail(sets[i]["minCount"], file, p + ".minCount", "must not be above count");
      }
      w.min_counts.back() = min;
    }
  }
  if (node["status"] && !node["status"].is_null()) {
    read_workload_status(node["status"], file, path + ".status", w);
  }
  if (w.podsets.empty()) {
    fail(spec["podSets"], file, path + ".spec.podSets", "a Workload has at least one PodSet");
  }
  return w;
}

}  // namespace tidesim
