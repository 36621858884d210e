#include "tidesim/policies/kube_objects.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

#include "tidesim/sim/api/pod_yaml.hpp"
#include "tidesim/sim/input/units.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::policies {
namespace {

[[noreturn]] void fail(const ConfigNode& n, const std::string& file, const std::string& field,
                       const std::string& msg) {
  throw InputError(location_of(n, file), field, msg);
}

std::string scalar(const ConfigNode& n, const std::string& file, const std::string& field) {
  if (!n.is_scalar()) {
    fail(n, file, field, "expected a scalar");
  }
  return n.scalar();
}

// The scalar `key` of the mapping `parent` (at `field`); a missing key is named as missing, at the
// mapping's place (not "expected a scalar" where nothing is written).
std::string required_scalar(const ConfigNode& parent, const char* key, const std::string& file,
                            const std::string& field) {
  const ConfigNode n = parent.is_map() ? parent[key] : ConfigNode();
  if (!n) {
    fail(parent, file, field, "missing required field");
  }
  return scalar(n, file, field);
}

std::vector<ConfigNode> list(const ConfigNode& n, const std::string& file,
                             const std::string& field) {
  if (!n || n.is_null()) {
    return {};
  }
  return sequence_of(n, file, field);
}

}  // namespace

std::shared_ptr<PodSpec> parse_pod(const ConfigNode& node, const std::string& file,
                                   const std::string& path, std::string* phase) {
  auto p = std::make_shared<PodSpec>();
  const ConfigNode meta = node["metadata"];
  if (!meta || !meta["name"]) {
    fail(node, file, path + ".metadata.name", "missing required field");
  }
  read_pod_metadata(meta, file, path + ".metadata", PodReadMode::kServerObject, &p->name, p.get());
  const ConfigNode spec = node["spec"];
  if (!spec || !spec.is_map()) {
    fail(node, file, path + ".spec", "missing pod spec");
  }
  read_pod_spec(spec, file, path + ".spec", PodReadMode::kServerObject, *p);
  if (phase != nullptr && node["status"] && node["status"]["phase"]) {
    *phase = scalar(node["status"]["phase"], file, path + ".status.phase");
  }
  return p;
}

KubeNode parse_node(const ConfigNode& node, const std::string& file, const std::string& path) {
  KubeNode n;
  const ConfigNode meta = node["metadata"];
  if (!meta || !meta["name"]) {
    fail(node, file, path + ".metadata.name", "missing required field");
  }
  n.spec.name = scalar(meta["name"], file, path + ".metadata.name");
  n.spec.labels = string_map(meta["labels"], file, path + ".metadata.labels");
  n.spec.labels.emplace("kubernetes.io/hostname", n.spec.name);
  n.annotations = string_map(meta["annotations"], file, path + ".metadata.annotations");
  if (meta["annotations"] && meta["annotations"].is_map()) {
    for (const auto& kv : meta["annotations"].entries()) {
      const std::string key = kv.first.scalar();
      n.annotation_places[key] = {location_of(kv.second, file),
                                  path + ".metadata.annotations." + key};
    }
  }
  if (const ConfigNode spec = node["spec"]) {
    if (spec["unschedulable"]) {
      n.spec.unschedulable =
          scalar(spec["unschedulable"], file, path + ".spec.unschedulable") == "true";
    }
    const auto taints = list(spec["taints"], file, path + ".spec.taints");
    for (std::size_t i = 0; i < taints.size(); ++i) {
      const std::string f = path + ".spec.taints[" + std::to_string(i) + "]";
      Taint t;
      t.key = required_scalar(taints[i], "key", file, f + ".key");
      if (taints[i]["value"])
        t.value = scalar(taints[i]["value"], file, f + ".value");
      t.effect = required_scalar(taints[i], "effect", file, f + ".effect");
      if (t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" && t.effect != "NoExecute") {
        fail(taints[i]["effect"], file, f + ".effect",
             "must be NoSchedule, PreferNoSchedule or NoExecute");
      }
      n.spec.taints.push_back(t);
    }
  }
  const ConfigNode status = node["status"];
  if (!status || !(status["allocatable"] || status["capacity"])) {
    fail(node, file, path + ".status.allocatable", "missing required field");
  }
  const char* key = status["allocatable"] ? "allocatable" : "capacity";
  n.spec.allocatable = read_resource_list(status[key], file, path + ".status." + key).amounts;
  return n;
}

KubeObjects read_kube_objects(const std::string& path) {
  // A yaml-cpp exception escaping the reader (a bad conversion, say) still names the file.
  return yaml_guard(path, [&] {
    KubeObjects out;
    const auto docs = load_all_yaml_file(path);
    std::vector<std::pair<ConfigNode, std::string>> objects;
    for (std::size_t d = 0; d < docs.size(); ++d) {
      const ConfigNode& doc = docs[d];
      if (!doc || doc.is_null()) {
        continue;
      }
      const std::string kind = doc["kind"] ? scalar(doc["kind"], path, "kind") : "";
      if (kind == "List" || kind == "NodeList" || kind == "PodList") {
        const auto items = list(doc["items"], path, "items");
        for (std::size_t i = 0; i < items.size(); ++i) {
          objects.emplace_back(items[i], "items[" + std::to_string(i) + "]");
        }
      } else {
        objects.emplace_back(doc, "document[" + std::to_string(d) + "]");
      }
    }
    if (std::all_of(docs.begin(), docs.end(),
                    [](const ConfigNode& doc) { return !doc || doc.is_null(); })) {
      throw empty_file_error(path);
    }
    std::map<std::string, std::string> node_places;  // node name -> where it was first
    for (const auto& [obj, where] : objects) {
      const std::string kind = obj["kind"] ? scalar(obj["kind"], path, where + ".kind") : "";
      if (kind == "Node") {
        out.nodes.push_back(parse_node(obj, path, where));
        const auto [first, inserted] = node_places.emplace(out.nodes.back().spec.name, where);
        if (!inserted) {
          fail(obj["metadata"]["name"], path, where + ".metadata.name",
               "duplicate node '" + first->first + "' (first at " + first->second + ")");
        }
      } else if (kind == "Pod") {
        KubePod p;
        p.spec = parse_pod(obj, path, where, &p.phase);
        const ConfigNode spec = obj["spec"];
        const ConfigNode node_name = spec && spec.is_map() ? spec["nodeName"] : ConfigNode();
        p.node_name_where = location_of(node_name ? node_name : obj, path);
        p.node_name_field = where + ".spec.nodeName";
        out.pods.push_back(p);
      } else {
        fail(obj, path, where + ".kind", "expected Node or Pod, got '" + kind + "'");
      }
    }
    return out;
  });
}

std::optional<std::pair<NodeMetrics, Duration>> metrics_from_annotations(const KubeNode& node,
                                                                         const std::string& file) {
  const auto& a = node.annotations;
  // An annotation's value and field path, or the file alone for a node built without them.
  const auto place = [&](const std::string& key) {
    const auto it = node.annotation_places.find(key);
    return it != node.annotation_places.end()
               ? it->second
               : std::make_pair(SourceLocation{file, 0, 0},
                                "node " + node.spec.name + " annotation " + key);
  };
  const auto number = [&](const std::string& key, const std::string& text) {
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v) || v < 0) {
      const auto [where, field] = place(key);
      throw InputError(where, field, "expected a non-negative number, got '" + text + "'");
    }
    return v;
  };
  const auto split = [](const std::string& s) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= s.size()) {
      const auto comma = s.find(',', start);
      parts.push_back(
          s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos)
        break;
      start = comma + 1;
    }
    return parts;
  };
  bool any = false;
  NodeMetrics m;
  Duration latency = Duration::zero();
  if (const auto it = a.find("tidesim.io/gpu-memory-utilization"); it != a.end()) {
    any = true;
    for (const auto& part : split(it->second)) {
      const double v = number(it->first, part);
      if (v > 1.0) {
        const auto [where, field] = place(it->first);
        throw InputError(where, field,
                         "'" + part + "' is not a utilisation; each card's value lies in [0, 1]");
      }
      m.gpu_memory_utilization.push_back(v);
    }
    // One value per card: more would add cards the node does not have, fewer would drop some.
    const auto cards = static_cast<std::size_t>(node.spec.allocatable.gpus);
    if (m.gpu_memory_utilization.size() != cards) {
      const auto [where, field] = place(it->first);
      throw InputError(where, field,
                       fmt::format("{} value(s) for a node with {} card(s) (its allocatable "
                                   "nvidia.com/gpu); give one per card",
                                   m.gpu_memory_utilization.size(), cards));
    }
  }
  if (const auto it = a.find("tidesim.io/nvlink-competition-index"); it != a.end()) {
    any = true;
    m.nvlink_competition_index = number(it->first, it->second);
  }
  if (const auto it = a.find("tidesim.io/storage-await-ms"); it != a.end()) {
    any = true;
    for (const auto& part : split(it->second)) {
      const auto eq = part.find('=');
      const std::string device = eq == std::string::npos ? "default" : part.substr(0, eq);
      const double v = number(it->first, eq == std::string::npos ? part : part.substr(eq + 1));
      if (!m.storage_await_ms.emplace(device, v).second) {
        const auto [where, field] = place(it->first);
        throw InputError(where, field,
                         eq == std::string::npos
                             ? "more than one value without a device name; name each device "
                               "(\"nvme0n1=6,sdb=3.5\")"
                             : "device '" + device + "' is named twice");
      }
    }
  }
  if (const auto it = a.find("tidesim.io/metrics-latency"); it != a.end()) {
    try {
      latency = parse_duration(it->second);
    } catch (const std::invalid_argument& e) {
      const auto [where, field] = place(it->first);
      throw InputError(where, field, e.what());
    }
  }
  if (!any) {
    return std::nullopt;
  }
  return std::make_pair(m, latency);
}

}  // namespace tidesim::policies
