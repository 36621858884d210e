#include "tidesim/sim/scenario/kube_snapshot.hpp"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "tidesim/policies/kube_objects.hpp"
#include "tidesim/sim/admission/tas_snapshot.hpp"
#include "tidesim/sim/api/pod_yaml.hpp"
#include "tidesim/sim/input/units.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim {

namespace {
// The GPU product label of NVIDIA's GPU feature discovery.
constexpr const char* kGpuProductLabel = "nvidia.com/gpu.product";
}  // namespace

namespace kueue_read {

[[noreturn]] void fail(const ConfigNode& n, const std::string& file, const std::string& field,
                       const std::string& message) {
  throw InputError(location_of(n, file), field, message);
}

std::string text(const ConfigNode& n, const std::string& file, const std::string& field) {
  if (!n.is_scalar()) {
    fail(n, file, field, "expected a single value");
  }
  return n.scalar();
}

std::string required(const ConfigNode& parent, const char* key, const std::string& file,
                     const std::string& path) {
  if (!parent[key]) {
    fail(parent, file, path + "." + key, "missing required field");
  }
  return text(parent[key], file, path + "." + key);
}

}  // namespace kueue_read
namespace {

struct Object {
  ConfigNode node;
  std::string path;  // field path of the object in its file: items[3], document[0]
};

using kueue_read::fail;
using kueue_read::required;
using kueue_read::text;

void read_node(const Object& o, const std::string& file, KueueSnapshot& out) {
  policies::KubeNode kn = policies::parse_node(o.node, file, o.path);
  tas::TasNode node{.name = kn.spec.name,
                    .labels = kn.spec.labels,
                    .allocatable = tas::resource_map(kn.spec.allocatable),
                    .taints = kn.spec.taints,
                    .unschedulable = kn.spec.unschedulable,
                    .ready = true};
  // parse_node gives a node without a hostname label its name as one (as kubelet would); Kueue
  // reads the labels as they are, and leaves such a node out of a topology with that level.
  const ConfigNode labels = o.node["metadata"]["labels"];
  if (!labels || !labels[tas::kHostnameLabel]) {
    node.labels.erase(tas::kHostnameLabel);
  }
  const ConfigNode status = o.node["status"];
  const char* key = status["allocatable"] ? "allocatable" : "capacity";
  if (const ConfigNode pods = status[key]["pods"]) {
    const std::string field = o.path + ".status." + key + ".pods";
    try {
      node.allocatable["pods"] = parse_quantity(text(pods, file, field));
    } catch (const QuantityError& e) {
      fail(pods, file, field, e.what());
    }
  }
  // The Ready condition (Kueue keeps only Ready nodes); a node written without conditions
  // counts as Ready.
  if (const ConfigNode conditions = status["conditions"]) {
    node.ready = false;
    const auto items = sequence_of(conditions, file, o.path + ".status.conditions");
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string f = o.path + ".status.conditions[" + std::to_string(i) + "]";
      if (items[i]["type"] && text(items[i]["type"], file, f + ".type") == "Ready") {
        node.ready = required(items[i], "status", file, f) == "True";
        break;
      }
    }
  }
  SnapshotNode object{.spec = kn.spec,
                      .ready = node.ready,
                      .where = location_of(o.node, file),
                      .product_where = location_of(o.node, file)};
  if (labels && labels[kGpuProductLabel]) {
    object.product_where = location_of(labels[kGpuProductLabel], file);
  }
  out.nodes.push_back(std::move(node));
  out.node_objects.push_back(std::move(object));
}

void read_pod(const Object& o, const std::string& file, KueueSnapshot& out) {
  std::string phase;
  auto spec = policies::parse_pod(o.node, file, o.path, &phase);
  out.pods.push_back(tas::TasPod{.name = spec->name,
                                 .node_name = spec->node_name,
                                 .phase = phase.empty() ? "Running" : phase,
                                 .requests = tas::resource_map(spec->requests)});
  SnapshotPod object{.spec = spec,
                     .phase = out.pods.back().phase,
                     .runs_for = std::nullopt,
                     .where = location_of(o.node, file)};
  if (const ConfigNode runs_for = o.node["metadata"]["annotations"][kRunsForAnnotation]) {
    const std::string field =
        o.path + ".metadata.annotations[" + std::string(kRunsForAnnotation) + "]";
    try {
      object.runs_for = parse_duration(text(runs_for, file, field));
    } catch (const std::invalid_argument& e) {
      fail(runs_for, file, field, e.what());
    }
    if (*object.runs_for < Duration::zero()) {
      fail(runs_for, file, field, "must not be negative");
    }
  }
  out.pod_objects.push_back(std::move(object));
}

void read_topology(const Object& o, const std::string& file, KueueSnapshot& out) {
  const std::string name = required(o.node["metadata"], "name", file, o.path + ".metadata");
  const ConfigNode levels = o.node["spec"]["levels"];
  if (!levels) {
    fail(o.node, file, o.path + ".spec.levels", "missing required field");
  }
  std::vector<std::string> keys;
  const auto items = sequence_of(levels, file, o.path + ".spec.levels");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string f = o.path + ".spec.levels[" + std::to_string(i) + "]";
    std::string label = required(items[i], "nodeLabel", file, f);
    if (std::find(keys.begin(), keys.end(), label) != keys.end()) {
      fail(items[i]["nodeLabel"], file, f + ".nodeLabel", "level '" + label + "' repeated");
    }
    if (!keys.empty() && keys.back() == tas::kHostnameLabel) {
      fail(items[i], file, f, std::string(tas::kHostnameLabel) + " may only be the last level");
    }
    keys.push_back(label);
  }
  if (keys.empty() || keys.size() > 16) {
    fail(levels, file, o.path + ".spec.levels", "a Topology has 1 to 16 levels");
  }
  out.topologies[name] = keys;
  out.topology_where[name] = location_of(o.node, file);
}

std::vector<Toleration> read_tolerations(const ConfigNode& n, const std::string& file,
                                         const std::string& path) {
  std::vector<Toleration> out;
  if (!n) {
    return out;
  }
  const auto items = sequence_of(n, file, path);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string f = path + "[" + std::to_string(i) + "]";
    Toleration t;
    if (items[i]["key"]) {
      t.key = text(items[i]["key"], file, f + ".key");
    }
    if (items[i]["operator"]) {
      t.op = text(items[i]["operator"], file, f + ".operator");
      if (t.op != "Equal" && t.op != "Exists") {
        fail(items[i]["operator"], file, f + ".operator", "must be Equal or Exists");
      }
    }
    if (items[i]["value"]) {
      t.value = text(items[i]["value"], file, f + ".value");
    }
    if (items[i]["effect"]) {
      t.effect = text(items[i]["effect"], file, f + ".effect");
    }
    out.push_back(t);
  }
  return out;
}

void read_flavor(const Object& o, const std::string& file, KueueSnapshot& out) {
  KueueFlavor f;
  f.name = required(o.node["metadata"], "name", file, o.path + ".metadata");
  f.where = location_of(o.node, file);
  const ConfigNode spec = o.node["spec"];
  f.node_labels = string_map(spec["nodeLabels"], file, o.path + ".spec.nodeLabels");
  f.tolerations = read_tolerations(spec["tolerations"], file, o.path + ".spec.tolerations");
  if (spec["topologyName"]) {
    f.topology_name = text(spec["topologyName"], file, o.path + ".spec.topologyName");
  }
  out.flavors.push_back(std::move(f));
}

void read_cluster_queue(const Object& o, const std::string& file, KueueSnapshot& out) {
  const std::string name = required(o.node["metadata"], "name", file, o.path + ".metadata");
  out.cluster_queue_objects.push_back(
      SnapshotObject{.name = name, .node = o.node, .file = file, .path = o.path});
  read_queue_checks(o.node, file, o.path, name, out);
  std::vector<std::string>& flavors = out.cluster_queues[name];
  const std::string groups_path = o.path + ".spec.resourceGroups";
  const ConfigNode groups = o.node["spec"]["resourceGroups"];
  if (!groups) {
    return;
  }
  const auto gs = sequence_of(groups, file, groups_path);
  for (std::size_t g = 0; g < gs.size(); ++g) {
    const std::string gp = groups_path + "[" + std::to_string(g) + "].flavors";
    if (!gs[g]["flavors"]) {
      continue;
    }
    const auto fs = sequence_of(gs[g]["flavors"], file, gp);
    for (std::size_t i = 0; i < fs.size(); ++i) {
      std::string flavor = required(fs[i], "name", file, gp + "[" + std::to_string(i) + "]");
      if (std::find(flavors.begin(), flavors.end(), flavor) == flavors.end()) {
        flavors.push_back(flavor);
      }
    }
  }
}

void read_local_queue(const Object& o, const std::string& file, KueueSnapshot& out) {
  const ConfigNode meta = o.node["metadata"];
  const std::string name = required(meta, "name", file, o.path + ".metadata");
  const std::string ns =
      meta["namespace"] ? text(meta["namespace"], file, o.path + ".metadata.namespace") : "default";
  out.local_queues[ns + "/" + name] =
      required(o.node["spec"], "clusterQueue", file, o.path + ".spec");
  out.local_queue_where[ns + "/" + name] = location_of(o.node, file);
}

std::vector<Object> objects_of(const std::string& file) {
  std::vector<Object> objects;
  const auto docs = load_all_yaml_file(file);
  for (std::size_t d = 0; d < docs.size(); ++d) {
    const ConfigNode& doc = docs[d];
    if (!doc || doc.is_null()) {
      continue;
    }
    if (!doc.is_map()) {
      fail(doc, file, "document[" + std::to_string(d) + "]", "expected a Kubernetes object");
    }
    const std::string kind = doc["kind"] ? text(doc["kind"], file, "kind") : "";
    if (kind.size() >= 4 && kind.ends_with("List")) {
      const auto items = sequence_of(doc["items"], file, "items");
      for (std::size_t i = 0; i < items.size(); ++i) {
        objects.push_back(Object{items[i], "items[" + std::to_string(i) + "]"});
      }
    } else {
      objects.push_back(Object{doc, docs.size() == 1 ? "" : "document[" + std::to_string(d) + "]"});
    }
  }
  return objects;
}

void read_file(const std::string& file, KueueSnapshot& out) {
  yaml_guard(file, [&] {
    for (const Object& o : objects_of(file)) {
      const std::string kind_field = o.path.empty() ? "kind" : o.path + ".kind";
      const std::string kind = o.node["kind"] ? text(o.node["kind"], file, kind_field) : "";
      Object obj = o;
      if (obj.path.empty()) {
        obj.path = kind.empty() ? "object" : kind;
      }
      if (kind == "Node") {
        read_node(obj, file, out);
      } else if (kind == "Pod") {
        read_pod(obj, file, out);
      } else if (kind == "Topology") {
        read_topology(obj, file, out);
      } else if (kind == "ResourceFlavor") {
        read_flavor(obj, file, out);
      } else if (kind == "ClusterQueue") {
        read_cluster_queue(obj, file, out);
      } else if (kind == "LocalQueue") {
        read_local_queue(obj, file, out);
      } else if (kind == "HyperNode") {
        out.hypernodes.push_back(volcano::read_hypernode(obj.node, file, obj.path));
      } else if (kind == "AdmissionCheck") {
        read_admission_check(obj.node, file, obj.path, out);
      } else if (kind == "Workload") {
        out.workloads.push_back(read_workload_object(obj.node, file, obj.path));
      }
    }
    return 0;
  });
}

}  // namespace

std::vector<std::string> snapshot_files(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    return {path};
  }
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    throw InputError(SourceLocation{.file = path, .line = 0, .column = 0}, "",
                     "the folder holds no .yaml, .yml or .json file");
  }
  return files;
}

std::vector<Toleration> kueue_read::tolerations(const ConfigNode& n, const std::string& file,
                                                const std::string& path) {
  return read_tolerations(n, file, path);
}

KueueSnapshot read_kueue_snapshot(const std::string& path) {
  KueueSnapshot out;
  for (const std::string& f : snapshot_files(path)) {
    read_file(f, out);
  }
  std::sort(out.flavors.begin(), out.flavors.end(),
            [](const KueueFlavor& a, const KueueFlavor& b) { return a.name < b.name; });
  return out;
}

}  // namespace tidesim
