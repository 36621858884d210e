#include "workloads/manifest.hpp"

#include <algorithm>
#include <charconv>

#include "sim/engine/units.hpp"
#include "sim/engine/yaml_fields.hpp"

namespace tidesim::workloads {
namespace {

using StringMap = std::map<std::string, std::string>;

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

std::string scalar_text(const YAML::Node& n, const std::string& file, const std::string& path) {
  if (!n.IsScalar()) {
    throw InputError(location_of(n, file), path, "expected a single value");
  }
  return n.Scalar();
}

StringMap string_map(const YAML::Node& n, const std::string& file, const std::string& path) {
  StringMap out;
  if (!n || n.IsNull()) {
    return out;
  }
  if (!n.IsMap()) {
    throw InputError(location_of(n, file), path, "expected a mapping of names to values");
  }
  for (const auto& kv : n) {
    const std::string key = kv.first.as<std::string>();
    out[key] = scalar_text(kv.second, file, path + "." + key);
  }
  return out;
}

std::vector<std::string> string_list(const YAML::Node& n, const std::string& file,
                                     const std::string& path) {
  std::vector<std::string> out;
  if (!n || n.IsNull()) {
    return out;
  }
  int i = 0;
  for (const auto& item : sequence_of(n, file, path)) {
    out.push_back(scalar_text(item, file, path + "[" + std::to_string(i++) + "]"));
  }
  return out;
}

std::string indexed(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

SelectorRequirement requirement(const YAML::Node& n, const std::string& file,
                                const std::string& path, bool node_selector) {
  Fields f(n, file, path);
  SelectorRequirement r;
  r.key = f.string("key");
  const std::vector<std::string> label_ops = {"In", "NotIn", "Exists", "DoesNotExist"};
  std::vector<std::string> ops = label_ops;
  if (node_selector) {
    ops.push_back("Gt");
    ops.push_back("Lt");
  }
  r.op = f.choice("operator", std::nullopt, ops);
  r.values = string_list(f.get("values"), file, f.path_of("values"));
  f.finish();
  return r;
}

std::vector<SelectorRequirement> requirements(const YAML::Node& n, const std::string& file,
                                              const std::string& path, bool node_selector) {
  std::vector<SelectorRequirement> out;
  if (!n || n.IsNull()) {
    return out;
  }
  const auto items = sequence_of(n, file, path);
  for (std::size_t i = 0; i < items.size(); ++i) {
    out.push_back(requirement(items[i], file, indexed(path, i), node_selector));
  }
  return out;
}

LabelSelector label_selector(const YAML::Node& n, const std::string& file,
                             const std::string& path) {
  Fields f(n, file, path);
  LabelSelector s;
  s.match_labels = string_map(f.get("matchLabels"), file, f.path_of("matchLabels"));
  s.match_expressions =
      requirements(f.get("matchExpressions"), file, f.path_of("matchExpressions"), false);
  f.finish();
  return s;
}

NodeSelectorTerm node_selector_term(const YAML::Node& n, const std::string& file,
                                    const std::string& path) {
  Fields f(n, file, path);
  NodeSelectorTerm t;
  t.match_expressions =
      requirements(f.get("matchExpressions"), file, f.path_of("matchExpressions"), true);
  t.match_fields = requirements(f.get("matchFields"), file, f.path_of("matchFields"), true);
  for (const auto& r : t.match_fields) {
    if (r.key != "metadata.name") {
      throw f.error(f.get("matchFields"), "matchFields",
                    "only metadata.name is supported, not '" + r.key + "'");
    }
  }
  f.finish();
  return t;
}

NodeAffinity node_affinity(const YAML::Node& n, const std::string& file, const std::string& path) {
  Fields f(n, file, path);
  NodeAffinity a;
  if (f.has("requiredDuringSchedulingIgnoredDuringExecution")) {
    Fields req(f.get("requiredDuringSchedulingIgnoredDuringExecution"), file,
               f.path_of("requiredDuringSchedulingIgnoredDuringExecution"));
    const auto terms =
        sequence_of(req.require("nodeSelectorTerms"), file, req.path_of("nodeSelectorTerms"));
    for (std::size_t i = 0; i < terms.size(); ++i) {
      a.required.push_back(
          node_selector_term(terms[i], file, indexed(req.path_of("nodeSelectorTerms"), i)));
    }
    req.finish();
  }
  if (f.has("preferredDuringSchedulingIgnoredDuringExecution")) {
    const std::string p = f.path_of("preferredDuringSchedulingIgnoredDuringExecution");
    const auto items =
        sequence_of(f.get("preferredDuringSchedulingIgnoredDuringExecution"), file, p);
    for (std::size_t i = 0; i < items.size(); ++i) {
      Fields pf(items[i], file, indexed(p, i));
      PreferredSchedulingTerm t;
      t.weight = static_cast<std::int32_t>(pf.integer("weight", std::nullopt, 1, 100));
      t.preference = node_selector_term(pf.require("preference"), file, pf.path_of("preference"));
      pf.finish();
      a.preferred.push_back(std::move(t));
    }
  }
  f.finish();
  return a;
}

PodAffinityTerm pod_affinity_term(const YAML::Node& n, const std::string& file,
                                  const std::string& path) {
  Fields f(n, file, path);
  PodAffinityTerm t;
  if (f.has("labelSelector")) {
    t.label_selector = label_selector(f.get("labelSelector"), file, f.path_of("labelSelector"));
  }
  t.topology_key = f.string("topologyKey");
  t.namespaces = string_list(f.get("namespaces"), file, f.path_of("namespaces"));
  reject(f, {"namespaceSelector", "matchLabelKeys", "mismatchLabelKeys"},
         "the simulator has one namespace view; use labelSelector");
  f.finish();
  return t;
}

PodAffinity pod_affinity(const YAML::Node& n, const std::string& file, const std::string& path) {
  Fields f(n, file, path);
  PodAffinity a;
  const std::string rk = "requiredDuringSchedulingIgnoredDuringExecution";
  if (f.has(rk)) {
    const auto items = sequence_of(f.get(rk), file, f.path_of(rk));
    for (std::size_t i = 0; i < items.size(); ++i) {
      a.required.push_back(pod_affinity_term(items[i], file, indexed(f.path_of(rk), i)));
    }
  }
  const std::string pk = "preferredDuringSchedulingIgnoredDuringExecution";
  if (f.has(pk)) {
    const auto items = sequence_of(f.get(pk), file, f.path_of(pk));
    for (std::size_t i = 0; i < items.size(); ++i) {
      Fields wf(items[i], file, indexed(f.path_of(pk), i));
      WeightedPodAffinityTerm w;
      w.weight = static_cast<std::int32_t>(wf.integer("weight", std::nullopt, 1, 100));
      w.term =
          pod_affinity_term(wf.require("podAffinityTerm"), file, wf.path_of("podAffinityTerm"));
      wf.finish();
      a.preferred.push_back(std::move(w));
    }
  }
  f.finish();
  return a;
}

Toleration toleration(const YAML::Node& n, const std::string& file, const std::string& path) {
  Fields f(n, file, path);
  Toleration t;
  t.key = f.string("key", "");
  t.op = f.choice("operator", "Equal", {"Equal", "Exists"});
  t.value = f.string("value", "");
  t.effect = f.choice("effect", "", {"", "NoSchedule", "PreferNoSchedule", "NoExecute"});
  ignore(f, {"tolerationSeconds"});
  f.finish();
  return t;
}

TopologySpreadConstraint spread(const YAML::Node& n, const std::string& file,
                                const std::string& path) {
  Fields f(n, file, path);
  TopologySpreadConstraint c;
  c.max_skew = static_cast<std::int32_t>(f.integer("maxSkew", std::nullopt, 1, 1'000'000));
  c.topology_key = f.string("topologyKey");
  c.when_unsatisfiable =
      f.choice("whenUnsatisfiable", std::nullopt, {"DoNotSchedule", "ScheduleAnyway"});
  if (f.has("labelSelector")) {
    c.label_selector = label_selector(f.get("labelSelector"), file, f.path_of("labelSelector"));
  }
  reject(f, {"minDomains", "nodeAffinityPolicy", "nodeTaintsPolicy", "matchLabelKeys"},
         "only maxSkew, topologyKey, whenUnsatisfiable and labelSelector are modelled");
  f.finish();
  return c;
}

std::int64_t integer_quantity(const std::string& text) {
  std::int64_t v = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || v < 0) {
    throw std::invalid_argument("'" + text + "' is not a whole non-negative number");
  }
  return v;
}

// One container's requests or limits.
Resources resource_list(const YAML::Node& n, const std::string& file, const std::string& path) {
  Resources r;
  if (!n || n.IsNull()) {
    return r;
  }
  if (!n.IsMap()) {
    throw InputError(location_of(n, file), path, "expected a mapping of resource names to amounts");
  }
  for (const auto& kv : n) {
    const std::string name = kv.first.as<std::string>();
    const std::string text = scalar_text(kv.second, file, path + "." + name);
    try {
      if (name == "cpu") {
        r.cpu_milli = parse_cpu_millis(text);
      } else if (name == "memory") {
        r.memory_bytes = parse_bytes(text);
      } else if (name == kGpuResource) {
        r.gpus = integer_quantity(text);
      } else if (name == "ephemeral-storage" || name.rfind("hugepages-", 0) == 0) {
        r.extended[name] = parse_bytes(text);
      } else {
        r.extended[name] = integer_quantity(text);
      }
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      throw InputError(location_of(kv.second, file), path + "." + name, e.what());
    }
  }
  return r;
}

// Kubernetes defaults a missing request to the limit.
void default_requests(Resources& requests, const Resources& limits) {
  if (requests.cpu_milli == 0) {
    requests.cpu_milli = limits.cpu_milli;
  }
  if (requests.memory_bytes == 0) {
    requests.memory_bytes = limits.memory_bytes;
  }
  if (requests.gpus == 0) {
    requests.gpus = limits.gpus;
  }
  for (const auto& [name, v] : limits.extended) {
    requests.extended.emplace(name, v);
  }
}

struct Container {
  std::string image;
  StringMap env;
  Resources requests;
  Resources limits;
};

Container container(const YAML::Node& n, const std::string& file, const std::string& path) {
  Fields f(n, file, path);
  Container c;
  f.string("name");
  c.image = f.string("image", "");
  if (f.has("env")) {
    const auto items = sequence_of(f.get("env"), file, f.path_of("env"));
    for (std::size_t i = 0; i < items.size(); ++i) {
      Fields ef(items[i], file, indexed(f.path_of("env"), i));
      const std::string name = ef.string("name");
      // valueFrom (secrets, field refs) has no value the simulator can know: recorded as "".
      ef.get("valueFrom");
      c.env[name] = ef.string("value", "");
      ef.finish();
    }
  }
  if (f.has("resources")) {
    Fields rf(f.get("resources"), file, f.path_of("resources"));
    c.requests = resource_list(rf.get("requests"), file, rf.path_of("requests"));
    c.limits = resource_list(rf.get("limits"), file, rf.path_of("limits"));
    reject(rf, {"claims"}, "dynamic resource allocation is not modelled");
    rf.finish();
    default_requests(c.requests, c.limits);
  }
  // envFrom could set AI_NV_LINK_REQUIRED from a ConfigMap the simulator cannot read.
  reject(f, {"envFrom"}, "env from ConfigMaps/Secrets cannot be resolved; list env values");
  reject(f, {"resizePolicy"}, "in-place resize is not modelled");
  ignore(f, {"command", "args", "workingDir", "ports", "volumeMounts", "volumeDevices",
             "imagePullPolicy", "securityContext", "livenessProbe", "readinessProbe",
             "startupProbe", "lifecycle", "terminationMessagePath", "terminationMessagePolicy",
             "stdin", "stdinOnce", "tty", "restartPolicy"});
  f.finish();
  return c;
}

Resources max_of(const Resources& a, const Resources& b) {
  Resources r = a;
  r.cpu_milli = std::max(a.cpu_milli, b.cpu_milli);
  r.memory_bytes = std::max(a.memory_bytes, b.memory_bytes);
  r.gpus = std::max(a.gpus, b.gpus);
  for (const auto& [name, v] : b.extended) {
    r.extended[name] = std::max(r.extended[name], v);
  }
  return r;
}

// Fills `pod` from a PodSpec mapping.
void pod_spec(const YAML::Node& n, const std::string& file, const std::string& path, PodSpec& pod) {
  Fields f(n, file, path);
  const auto containers = sequence_of(f.require("containers"), file, f.path_of("containers"));
  if (containers.empty()) {
    throw f.error(f.get("containers"), "containers", "at least one container is required");
  }
  for (std::size_t i = 0; i < containers.size(); ++i) {
    Container c = container(containers[i], file, indexed(f.path_of("containers"), i));
    if (i == 0) {
      pod.image = c.image;
      pod.env = c.env;
    }
    pod.requests += c.requests;
    pod.limits += c.limits;
  }
  if (f.has("initContainers")) {
    const auto inits = sequence_of(f.get("initContainers"), file, f.path_of("initContainers"));
    for (std::size_t i = 0; i < inits.size(); ++i) {
      const Container c = container(inits[i], file, indexed(f.path_of("initContainers"), i));
      // Effective request: max(sum of containers, largest init container).
      pod.requests = max_of(pod.requests, c.requests);
    }
  }
  pod.scheduler_name = f.string("schedulerName", "default-scheduler");
  pod.node_selector = string_map(f.get("nodeSelector"), file, f.path_of("nodeSelector"));
  pod.node_name = f.string("nodeName", "");
  pod.priority =
      static_cast<std::int32_t>(f.integer("priority", 0, -2'147'483'648LL, 1'000'000'000LL));
  if (f.has("affinity")) {
    Fields af(f.get("affinity"), file, f.path_of("affinity"));
    if (af.has("nodeAffinity")) {
      pod.node_affinity = node_affinity(af.get("nodeAffinity"), file, af.path_of("nodeAffinity"));
    }
    if (af.has("podAffinity")) {
      pod.pod_affinity = pod_affinity(af.get("podAffinity"), file, af.path_of("podAffinity"));
    }
    if (af.has("podAntiAffinity")) {
      pod.pod_anti_affinity =
          pod_affinity(af.get("podAntiAffinity"), file, af.path_of("podAntiAffinity"));
    }
    af.finish();
  }
  if (f.has("tolerations")) {
    const auto items = sequence_of(f.get("tolerations"), file, f.path_of("tolerations"));
    for (std::size_t i = 0; i < items.size(); ++i) {
      pod.tolerations.push_back(toleration(items[i], file, indexed(f.path_of("tolerations"), i)));
    }
  }
  if (f.has("topologySpreadConstraints")) {
    const std::string p = f.path_of("topologySpreadConstraints");
    const auto items = sequence_of(f.get("topologySpreadConstraints"), file, p);
    for (std::size_t i = 0; i < items.size(); ++i) {
      pod.topology_spread.push_back(spread(items[i], file, indexed(p, i)));
    }
  }
  if (f.has("priorityClassName") && !f.has("priority")) {
    throw f.error(f.get("priorityClassName"), "priorityClassName",
                  "not supported: priority classes are not resolved; give spec.priority");
  }
  f.get("priorityClassName");
  reject(f, {"overhead"}, "pod overhead is not modelled");
  reject(f, {"resources"}, "pod-level resources are not modelled; use container resources");
  reject(f, {"resourceClaims"}, "dynamic resource allocation is not modelled");
  reject(f, {"schedulingGates"}, "scheduling gates are not modelled");
  reject(f, {"runtimeClassName"}, "runtime classes (and their scheduling rules) are not modelled");
  ignore(f, {"restartPolicy",
             "volumes",
             "imagePullSecrets",
             "serviceAccountName",
             "serviceAccount",
             "automountServiceAccountToken",
             "hostNetwork",
             "hostPID",
             "hostIPC",
             "dnsPolicy",
             "dnsConfig",
             "securityContext",
             "terminationGracePeriodSeconds",
             "activeDeadlineSeconds",
             "enableServiceLinks",
             "shareProcessNamespace",
             "hostname",
             "subdomain",
             "setHostnameAsFQDN",
             "hostAliases",
             "preemptionPolicy",
             "ephemeralContainers",
             "readinessGates",
             "os",
             "hostUsers"});
  f.finish();
}

// metadata of an object or a pod template.
void metadata(const YAML::Node& n, const std::string& file, const std::string& path,
              std::string* name, PodSpec* pod) {
  Fields f(n, file, path);
  const std::string generate = f.string("generateName", "");
  const std::string given = f.string("name", "");
  if (name != nullptr) {
    *name = given.empty() ? generate : given;
  }
  const std::string ns = f.string("namespace", "");
  const StringMap labels = string_map(f.get("labels"), file, f.path_of("labels"));
  const StringMap annotations = string_map(f.get("annotations"), file, f.path_of("annotations"));
  if (pod != nullptr) {
    if (!ns.empty()) {
      pod->namespace_name = ns;
    }
    pod->labels.insert(labels.begin(), labels.end());
    pod->annotations.insert(annotations.begin(), annotations.end());
  }
  ignore(f, {"uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
             "deletionGracePeriodSeconds", "ownerReferences", "finalizers", "managedFields",
             "selfLink"});
  f.finish();
}

}  // namespace

JobTemplate parse_manifest(const YAML::Node& doc, const std::string& file) {
  Fields top(doc, file, "");
  JobTemplate t;
  t.where = location_of(doc, file);
  const std::string api = top.string("apiVersion");
  t.kind = top.string("kind");
  if (!((t.kind == "Job" && api == "batch/v1") || (t.kind == "Pod" && api == "v1"))) {
    throw top.error(
        top.get("kind"), "kind",
        "unsupported kind '" + api + " " + t.kind + "'; supported: batch/v1 Job, v1 Pod");
  }
  PodSpec& pod = t.pod;
  if (top.has("metadata")) {
    // An object's own labels and annotations belong to the pod only for a Pod.
    metadata(top.get("metadata"), file, "metadata", &t.name, t.kind == "Pod" ? &pod : nullptr);
  }
  ignore(top, {"status"});
  if (t.kind == "Pod") {
    pod_spec(top.require("spec"), file, "spec", pod);
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
      metadata(tmpl.get("metadata"), file, "spec.template.metadata", nullptr, &pod);
    }
    pod_spec(tmpl.require("spec"), file, "spec.template.spec", pod);
    tmpl.finish();
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
  return t;
}

std::vector<JobTemplate> parse_manifests(const std::string& text, const std::string& name) {
  std::vector<JobTemplate> out;
  for (const auto& doc : load_all_yaml_string(text, name)) {
    if (!doc || doc.IsNull()) {
      continue;
    }
    out.push_back(parse_manifest(doc, name));
  }
  if (out.empty()) {
    throw InputError(SourceLocation{name, 0, 0}, "", "no manifest in the file");
  }
  return out;
}

std::vector<JobTemplate> load_manifests(const std::string& path) {
  std::vector<JobTemplate> out;
  for (const auto& doc : load_all_yaml_file(path)) {
    if (!doc || doc.IsNull()) {
      continue;
    }
    out.push_back(parse_manifest(doc, path));
  }
  if (out.empty()) {
    throw InputError(SourceLocation{path, 0, 0}, "", "no manifest in the file");
  }
  return out;
}

}  // namespace tidesim::workloads
