#include "policies/kube_objects.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include "sim/engine/units.hpp"
#include "sim/engine/yaml_fields.hpp"

namespace tidesim::policies {
namespace {

[[noreturn]] void fail(const YAML::Node& n, const std::string& file, const std::string& field,
                       const std::string& msg) {
  throw InputError(location_of(n, file), field, msg);
}

std::string scalar(const YAML::Node& n, const std::string& file, const std::string& field) {
  if (!n.IsScalar()) {
    fail(n, file, field, "expected a scalar");
  }
  return n.Scalar();
}

std::vector<YAML::Node> list(const YAML::Node& n, const std::string& file,
                             const std::string& field) {
  if (!n || n.IsNull()) {
    return {};
  }
  return sequence_of(n, file, field);
}

std::int64_t integer(const YAML::Node& n, const std::string& file, const std::string& field) {
  const std::string s = scalar(n, file, field);
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    fail(n, file, field, "expected an integer, got '" + s + "'");
  }
  return v;
}

Resources resources(const YAML::Node& n, const std::string& file, const std::string& field) {
  Resources r;
  if (!n || n.IsNull()) {
    return r;
  }
  if (!n.IsMap()) {
    fail(n, file, field, "expected a mapping of resource to quantity");
  }
  for (const auto& kv : n) {
    const std::string name = kv.first.as<std::string>();
    const std::string f = field + "." + name;
    const std::string text = scalar(kv.second, file, f);
    try {
      if (name == "cpu") {
        r.cpu_milli = parse_cpu_millis(text);
      } else if (name == "memory") {
        r.memory_bytes = parse_bytes(text);
      } else if (name == "pods" || name == "ephemeral-storage" ||
                 name.rfind("hugepages-", 0) == 0) {
        continue;  // not modelled
      } else if (name == kGpuResource) {
        r.gpus = integer(kv.second, file, f);
      } else {
        r.extended[name] = integer(kv.second, file, f);
      }
    } catch (const std::invalid_argument& e) {
      fail(kv.second, file, f, e.what());
    }
  }
  return r;
}

std::vector<SelectorRequirement> requirements(const YAML::Node& n, const std::string& file,
                                              const std::string& field) {
  std::vector<SelectorRequirement> out;
  const auto items = list(n, file, field);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string f = field + "[" + std::to_string(i) + "]";
    SelectorRequirement r;
    r.key = scalar(items[i]["key"], file, f + ".key");
    r.op = scalar(items[i]["operator"], file, f + ".operator");
    static const std::vector<std::string> ops{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
    if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) {
      fail(items[i]["operator"], file, f + ".operator", "unknown operator '" + r.op + "'");
    }
    for (const auto& v : list(items[i]["values"], file, f + ".values")) {
      r.values.push_back(scalar(v, file, f + ".values"));
    }
    out.push_back(r);
  }
  return out;
}

LabelSelector label_selector(const YAML::Node& n, const std::string& file,
                             const std::string& field) {
  LabelSelector s;
  if (!n || n.IsNull()) {
    return s;
  }
  s.match_labels = string_map(n["matchLabels"], file, field + ".matchLabels");
  s.match_expressions = requirements(n["matchExpressions"], file, field + ".matchExpressions");
  return s;
}

NodeSelectorTerm node_term(const YAML::Node& n, const std::string& file, const std::string& f) {
  NodeSelectorTerm t;
  t.match_expressions = requirements(n["matchExpressions"], file, f + ".matchExpressions");
  t.match_fields = requirements(n["matchFields"], file, f + ".matchFields");
  return t;
}

PodAffinityTerm pod_term(const YAML::Node& n, const std::string& file, const std::string& f) {
  PodAffinityTerm t;
  t.label_selector = label_selector(n["labelSelector"], file, f + ".labelSelector");
  t.topology_key = scalar(n["topologyKey"], file, f + ".topologyKey");
  for (const auto& ns : list(n["namespaces"], file, f + ".namespaces")) {
    t.namespaces.push_back(scalar(ns, file, f + ".namespaces"));
  }
  return t;
}

PodAffinity pod_affinity(const YAML::Node& n, const std::string& file, const std::string& f) {
  PodAffinity a;
  if (!n) {
    return a;
  }
  const std::string req = f + ".requiredDuringSchedulingIgnoredDuringExecution";
  const auto r = list(n["requiredDuringSchedulingIgnoredDuringExecution"], file, req);
  for (std::size_t i = 0; i < r.size(); ++i) {
    a.required.push_back(pod_term(r[i], file, req + "[" + std::to_string(i) + "]"));
  }
  const std::string pref = f + ".preferredDuringSchedulingIgnoredDuringExecution";
  const auto p = list(n["preferredDuringSchedulingIgnoredDuringExecution"], file, pref);
  for (std::size_t i = 0; i < p.size(); ++i) {
    const std::string fi = pref + "[" + std::to_string(i) + "]";
    WeightedPodAffinityTerm w;
    w.weight = static_cast<std::int32_t>(integer(p[i]["weight"], file, fi + ".weight"));
    w.term = pod_term(p[i]["podAffinityTerm"], file, fi + ".podAffinityTerm");
    a.preferred.push_back(w);
  }
  return a;
}

}  // namespace

std::shared_ptr<PodSpec> parse_pod(const YAML::Node& node, const std::string& file,
                                   const std::string& path, std::string* phase) {
  auto p = std::make_shared<PodSpec>();
  const YAML::Node meta = node["metadata"];
  if (!meta || !meta["name"]) {
    fail(node, file, path + ".metadata.name", "missing required field");
  }
  p->name = scalar(meta["name"], file, path + ".metadata.name");
  if (meta["namespace"]) {
    p->namespace_name = scalar(meta["namespace"], file, path + ".metadata.namespace");
  }
  p->labels = string_map(meta["labels"], file, path + ".metadata.labels");
  p->annotations = string_map(meta["annotations"], file, path + ".metadata.annotations");
  const YAML::Node spec = node["spec"];
  const std::string sp = path + ".spec";
  if (!spec || !spec.IsMap()) {
    fail(node, file, sp, "missing pod spec");
  }
  if (spec["nodeName"])
    p->node_name = scalar(spec["nodeName"], file, sp + ".nodeName");
  if (spec["schedulerName"]) {
    p->scheduler_name = scalar(spec["schedulerName"], file, sp + ".schedulerName");
  }
  if (spec["priority"]) {
    p->priority = static_cast<std::int32_t>(integer(spec["priority"], file, sp + ".priority"));
  }
  p->node_selector = string_map(spec["nodeSelector"], file, sp + ".nodeSelector");
  const auto tols = list(spec["tolerations"], file, sp + ".tolerations");
  for (std::size_t i = 0; i < tols.size(); ++i) {
    const std::string f = sp + ".tolerations[" + std::to_string(i) + "]";
    Toleration t;
    if (tols[i]["key"])
      t.key = scalar(tols[i]["key"], file, f + ".key");
    if (tols[i]["operator"])
      t.op = scalar(tols[i]["operator"], file, f + ".operator");
    if (tols[i]["value"])
      t.value = scalar(tols[i]["value"], file, f + ".value");
    if (tols[i]["effect"])
      t.effect = scalar(tols[i]["effect"], file, f + ".effect");
    p->tolerations.push_back(t);
  }
  if (const YAML::Node aff = spec["affinity"]) {
    const std::string af = sp + ".affinity";
    if (const YAML::Node na = aff["nodeAffinity"]) {
      const std::string f = af + ".nodeAffinity";
      if (const YAML::Node req = na["requiredDuringSchedulingIgnoredDuringExecution"]) {
        const std::string rf =
            f + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
        const auto terms = list(req["nodeSelectorTerms"], file, rf);
        for (std::size_t i = 0; i < terms.size(); ++i) {
          p->node_affinity.required.push_back(
              node_term(terms[i], file, rf + "[" + std::to_string(i) + "]"));
        }
      }
      const std::string pf = f + ".preferredDuringSchedulingIgnoredDuringExecution";
      const auto prefs = list(na["preferredDuringSchedulingIgnoredDuringExecution"], file, pf);
      for (std::size_t i = 0; i < prefs.size(); ++i) {
        const std::string fi = pf + "[" + std::to_string(i) + "]";
        PreferredSchedulingTerm t;
        t.weight = static_cast<std::int32_t>(integer(prefs[i]["weight"], file, fi + ".weight"));
        t.preference = node_term(prefs[i]["preference"], file, fi + ".preference");
        p->node_affinity.preferred.push_back(t);
      }
    }
    p->pod_affinity = pod_affinity(aff["podAffinity"], file, af + ".podAffinity");
    p->pod_anti_affinity = pod_affinity(aff["podAntiAffinity"], file, af + ".podAntiAffinity");
  }
  const auto tscs =
      list(spec["topologySpreadConstraints"], file, sp + ".topologySpreadConstraints");
  for (std::size_t i = 0; i < tscs.size(); ++i) {
    const std::string f = sp + ".topologySpreadConstraints[" + std::to_string(i) + "]";
    TopologySpreadConstraint c;
    c.max_skew = static_cast<std::int32_t>(integer(tscs[i]["maxSkew"], file, f + ".maxSkew"));
    c.topology_key = scalar(tscs[i]["topologyKey"], file, f + ".topologyKey");
    c.when_unsatisfiable = scalar(tscs[i]["whenUnsatisfiable"], file, f + ".whenUnsatisfiable");
    if (c.when_unsatisfiable != "DoNotSchedule" && c.when_unsatisfiable != "ScheduleAnyway") {
      fail(tscs[i]["whenUnsatisfiable"], file, f + ".whenUnsatisfiable",
           "must be DoNotSchedule or ScheduleAnyway");
    }
    c.label_selector = label_selector(tscs[i]["labelSelector"], file, f + ".labelSelector");
    p->topology_spread.push_back(c);
  }
  const auto containers = list(spec["containers"], file, sp + ".containers");
  if (containers.empty()) {
    fail(spec, file, sp + ".containers", "a pod needs at least one container");
  }
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const std::string f = sp + ".containers[" + std::to_string(i) + "]";
    const YAML::Node res = containers[i]["resources"];
    if (res) {
      p->requests += resources(res["requests"], file, f + ".resources.requests");
      p->limits += resources(res["limits"], file, f + ".resources.limits");
    }
    if (i == 0) {
      if (containers[i]["image"])
        p->image = scalar(containers[i]["image"], file, f + ".image");
      const auto env = list(containers[i]["env"], file, f + ".env");
      for (std::size_t k = 0; k < env.size(); ++k) {
        const std::string ef = f + ".env[" + std::to_string(k) + "]";
        const std::string name = scalar(env[k]["name"], file, ef + ".name");
        p->env[name] = env[k]["value"] ? scalar(env[k]["value"], file, ef + ".value") : "";
      }
    }
  }
  // Kubernetes defaults requests to limits for extended resources (and for any resource with a
  // limit and no request).
  if (p->requests.gpus == 0)
    p->requests.gpus = p->limits.gpus;
  if (phase != nullptr && node["status"] && node["status"]["phase"]) {
    *phase = scalar(node["status"]["phase"], file, path + ".status.phase");
  }
  return p;
}

KubeNode parse_node(const YAML::Node& node, const std::string& file, const std::string& path) {
  KubeNode n;
  const YAML::Node meta = node["metadata"];
  if (!meta || !meta["name"]) {
    fail(node, file, path + ".metadata.name", "missing required field");
  }
  n.spec.name = scalar(meta["name"], file, path + ".metadata.name");
  n.spec.labels = string_map(meta["labels"], file, path + ".metadata.labels");
  n.spec.labels.emplace("kubernetes.io/hostname", n.spec.name);
  n.annotations = string_map(meta["annotations"], file, path + ".metadata.annotations");
  if (const YAML::Node spec = node["spec"]) {
    if (spec["unschedulable"]) {
      n.spec.unschedulable = spec["unschedulable"].as<std::string>() == "true";
    }
    const auto taints = list(spec["taints"], file, path + ".spec.taints");
    for (std::size_t i = 0; i < taints.size(); ++i) {
      const std::string f = path + ".spec.taints[" + std::to_string(i) + "]";
      Taint t;
      t.key = scalar(taints[i]["key"], file, f + ".key");
      if (taints[i]["value"])
        t.value = scalar(taints[i]["value"], file, f + ".value");
      t.effect = scalar(taints[i]["effect"], file, f + ".effect");
      if (t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" && t.effect != "NoExecute") {
        fail(taints[i]["effect"], file, f + ".effect",
             "must be NoSchedule, PreferNoSchedule or NoExecute");
      }
      n.spec.taints.push_back(t);
    }
  }
  const YAML::Node status = node["status"];
  if (!status || !(status["allocatable"] || status["capacity"])) {
    fail(node, file, path + ".status.allocatable", "missing required field");
  }
  n.spec.allocatable = status["allocatable"]
                           ? resources(status["allocatable"], file, path + ".status.allocatable")
                           : resources(status["capacity"], file, path + ".status.capacity");
  return n;
}

KubeObjects read_kube_objects(const std::string& path) {
  KubeObjects out;
  const auto docs = load_all_yaml_file(path);
  std::vector<std::pair<YAML::Node, std::string>> objects;
  for (std::size_t d = 0; d < docs.size(); ++d) {
    const YAML::Node& doc = docs[d];
    if (!doc || doc.IsNull()) {
      continue;
    }
    const std::string kind = doc["kind"] ? doc["kind"].as<std::string>() : "";
    if (kind == "List" || kind == "NodeList" || kind == "PodList") {
      const auto items = list(doc["items"], path, "items");
      for (std::size_t i = 0; i < items.size(); ++i) {
        objects.emplace_back(items[i], "items[" + std::to_string(i) + "]");
      }
    } else {
      objects.emplace_back(doc, "document[" + std::to_string(d) + "]");
    }
  }
  for (const auto& [obj, where] : objects) {
    const std::string kind = obj["kind"] ? obj["kind"].as<std::string>() : "";
    if (kind == "Node") {
      out.nodes.push_back(parse_node(obj, path, where));
    } else if (kind == "Pod") {
      KubePod p;
      p.spec = parse_pod(obj, path, where, &p.phase);
      out.pods.push_back(p);
    } else {
      fail(obj, path, where + ".kind", "expected Node or Pod, got '" + kind + "'");
    }
  }
  return out;
}

std::optional<std::pair<NodeMetrics, Duration>> metrics_from_annotations(const KubeNode& node,
                                                                         const std::string& file) {
  const auto& a = node.annotations;
  const std::string base = "node " + node.spec.name + " annotation ";
  const auto number = [&](const std::string& key, const std::string& text) {
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v) || v < 0) {
      throw InputError(SourceLocation{file, 0, 0}, base + key,
                       "expected a non-negative number, got '" + text + "'");
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
      m.gpu_memory_utilization.push_back(number(it->first, part));
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
      if (eq == std::string::npos) {
        m.storage_await_ms["default"] = number(it->first, part);
      } else {
        m.storage_await_ms[part.substr(0, eq)] = number(it->first, part.substr(eq + 1));
      }
    }
  }
  if (const auto it = a.find("tidesim.io/metrics-latency"); it != a.end()) {
    try {
      latency = parse_duration(it->second);
    } catch (const std::invalid_argument& e) {
      throw InputError(SourceLocation{file, 0, 0}, base + it->first, e.what());
    }
  }
  if (!any) {
    return std::nullopt;
  }
  return std::make_pair(m, latency);
}

}  // namespace tidesim::policies
