#include "tidesim/sim/api/pod_yaml.hpp"

#include <initializer_list>
#include <limits>

#include "tidesim/sim/input/units.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim {
namespace {

using StringMap = std::map<std::string, std::string>;

// Reads each key's value with `f` so an unknown key is an error only in kManifest mode.
class Reader {
 public:
  Reader(const ConfigNode& n, const std::string& file, const std::string& path, PodReadMode mode)
      : f(n, file, path), mode_(mode) {}

  Fields f;

  bool strict() const { return mode_ == PodReadMode::kManifest; }
  PodReadMode mode() const { return mode_; }
  // Marks keys that never change a simulated run as allowed (their values are not read).
  void ignore(std::initializer_list<const char*> keys) {
    for (const char* k : keys) {
      f.get(k);
    }
  }
  // Rejects keys the simulator cannot honour (manifests only; a server object is read as is).
  void reject(std::initializer_list<const char*> keys, const std::string& why) {
    for (const char* k : keys) {
      if (strict() && f.has(k)) {
        throw f.error(f.get(k), k, "not supported: " + why);
      }
      f.get(k);
    }
  }
  void finish() const {
    if (strict()) {
      f.finish();
    }
  }

 private:
  PodReadMode mode_;
};

std::string indexed(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::vector<ConfigNode> items_of(const ConfigNode& n, const std::string& file,
                                 const std::string& path) {
  if (!n || n.is_null()) {
    return {};
  }
  return sequence_of(n, file, path);
}

std::vector<std::string> string_list(const ConfigNode& n, const std::string& file,
                                     const std::string& path) {
  std::vector<std::string> out;
  const auto items = items_of(n, file, path);
  for (std::size_t i = 0; i < items.size(); ++i) {
    out.push_back(scalar_of(items[i], file, indexed(path, i)));
  }
  return out;
}

// A label selector requirement allows In, NotIn, Exists, DoesNotExist; a node selector one also
// Gt and Lt (v1 validation).
SelectorRequirement requirement(const ConfigNode& n, const std::string& file,
                                const std::string& path, PodReadMode mode, bool node_selector) {
  Reader r(n, file, path, mode);
  SelectorRequirement out;
  out.key = r.f.string("key");
  std::vector<std::string> ops = {"In", "NotIn", "Exists", "DoesNotExist"};
  if (node_selector) {
    ops.push_back("Gt");
    ops.push_back("Lt");
  }
  out.op = r.f.choice("operator", std::nullopt, ops);
  out.values = string_list(r.f.get("values"), file, r.f.path_of("values"));
  r.finish();
  return out;
}

std::vector<SelectorRequirement> requirements(const ConfigNode& n, const std::string& file,
                                              const std::string& path, PodReadMode mode,
                                              bool node_selector) {
  std::vector<SelectorRequirement> out;
  const auto items = items_of(n, file, path);
  for (std::size_t i = 0; i < items.size(); ++i) {
    out.push_back(requirement(items[i], file, indexed(path, i), mode, node_selector));
  }
  return out;
}

LabelSelector label_selector(const ConfigNode& n, const std::string& file, const std::string& path,
                             PodReadMode mode) {
  Reader r(n, file, path, mode);
  LabelSelector s;
  s.match_labels = string_map(r.f.get("matchLabels"), file, r.f.path_of("matchLabels"));
  s.match_expressions =
      requirements(r.f.get("matchExpressions"), file, r.f.path_of("matchExpressions"), mode, false);
  r.finish();
  return s;
}

NodeSelectorTerm node_selector_term(const ConfigNode& n, const std::string& file,
                                    const std::string& path, PodReadMode mode) {
  Reader r(n, file, path, mode);
  NodeSelectorTerm t;
  t.match_expressions =
      requirements(r.f.get("matchExpressions"), file, r.f.path_of("matchExpressions"), mode, true);
  t.match_fields =
      requirements(r.f.get("matchFields"), file, r.f.path_of("matchFields"), mode, true);
  for (const auto& req : t.match_fields) {
    if (req.key != "metadata.name") {
      throw r.f.error(r.f.get("matchFields"), "matchFields",
                      "only metadata.name is supported, not '" + req.key + "'");
    }
  }
  r.finish();
  return t;
}

// Kubernetes' preferred terms (preferredDuringSchedulingIgnoredDuringExecution of `r`): a list of
// {weight: 1-100, TERM_KEY: term}, each term read by `read`, into `Weighted` ({weight, term}).
template <class Weighted, class Read>
std::vector<Weighted> weighted_terms(Reader& r, const std::string& term_key, Read read) {
  const std::string key = "preferredDuringSchedulingIgnoredDuringExecution";
  const std::string& file = r.f.file();
  const auto items = items_of(r.f.get(key), file, r.f.path_of(key));
  std::vector<Weighted> out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    Reader w(items[i], file, indexed(r.f.path_of(key), i), r.mode());
    const auto weight = static_cast<std::int32_t>(w.f.integer("weight", std::nullopt, 1, 100));
    out.push_back(
        Weighted{weight, read(w.f.require(term_key), file, w.f.path_of(term_key), r.mode())});
    w.finish();
  }
  return out;
}

NodeAffinity node_affinity(const ConfigNode& n, const std::string& file, const std::string& path,
                           PodReadMode mode) {
  Reader r(n, file, path, mode);
  NodeAffinity a;
  const std::string rk = "requiredDuringSchedulingIgnoredDuringExecution";
  if (r.f.has(rk)) {
    Reader req(r.f.get(rk), file, r.f.path_of(rk), mode);
    const std::string tp = req.f.path_of("nodeSelectorTerms");
    const auto terms = sequence_of(req.f.require("nodeSelectorTerms"), file, tp);
    for (std::size_t i = 0; i < terms.size(); ++i) {
      a.required.push_back(node_selector_term(terms[i], file, indexed(tp, i), mode));
    }
    req.finish();
  }
  a.preferred = weighted_terms<PreferredSchedulingTerm>(r, "preference", node_selector_term);
  r.finish();
  return a;
}

PodAffinityTerm pod_affinity_term(const ConfigNode& n, const std::string& file,
                                  const std::string& path, PodReadMode mode) {
  Reader r(n, file, path, mode);
  PodAffinityTerm t;
  if (r.f.has("labelSelector")) {
    t.label_selector =
        label_selector(r.f.get("labelSelector"), file, r.f.path_of("labelSelector"), mode);
  }
  t.topology_key = r.f.string("topologyKey");
  t.namespaces = string_list(r.f.get("namespaces"), file, r.f.path_of("namespaces"));
  r.reject({"namespaceSelector", "matchLabelKeys", "mismatchLabelKeys"},
           "the simulator has one namespace view; use labelSelector");
  r.finish();
  return t;
}

PodAffinity pod_affinity(const ConfigNode& n, const std::string& file, const std::string& path,
                         PodReadMode mode) {
  Reader r(n, file, path, mode);
  PodAffinity a;
  const std::string rk = "requiredDuringSchedulingIgnoredDuringExecution";
  const auto req = items_of(r.f.get(rk), file, r.f.path_of(rk));
  for (std::size_t i = 0; i < req.size(); ++i) {
    a.required.push_back(pod_affinity_term(req[i], file, indexed(r.f.path_of(rk), i), mode));
  }
  a.preferred = weighted_terms<WeightedPodAffinityTerm>(r, "podAffinityTerm", pod_affinity_term);
  r.finish();
  return a;
}

Toleration toleration(const ConfigNode& n, const std::string& file, const std::string& path,
                      PodReadMode mode) {
  Reader r(n, file, path, mode);
  Toleration t;
  t.key = r.f.string("key", "");
  t.op = r.f.choice("operator", "Equal", {"Equal", "Exists"});
  t.value = r.f.string("value", "");
  t.effect = r.f.choice("effect", "", {"", "NoSchedule", "PreferNoSchedule", "NoExecute"});
  r.ignore({"tolerationSeconds"});
  r.finish();
  return t;
}

TopologySpreadConstraint spread(const ConfigNode& n, const std::string& file,
                                const std::string& path, PodReadMode mode) {
  Reader r(n, file, path, mode);
  TopologySpreadConstraint c;
  c.max_skew = static_cast<std::int32_t>(
      r.f.integer("maxSkew", std::nullopt, 1, std::numeric_limits<std::int32_t>::max()));
  c.topology_key = r.f.string("topologyKey");
  c.when_unsatisfiable =
      r.f.choice("whenUnsatisfiable", std::nullopt, {"DoNotSchedule", "ScheduleAnyway"});
  if (r.f.has("labelSelector")) {
    c.label_selector =
        label_selector(r.f.get("labelSelector"), file, r.f.path_of("labelSelector"), mode);
  }
  r.reject({"minDomains", "nodeAffinityPolicy", "nodeTaintsPolicy", "matchLabelKeys"},
           "only maxSkew, topologyKey, whenUnsatisfiable and labelSelector are modelled");
  r.finish();
  return c;
}

// One container. `first` collects the image and env of the pod's first container.
Container container(const ConfigNode& n, const std::string& file, const std::string& path,
                    PodReadMode mode, bool init, PodSpec* first) {
  Reader r(n, file, path, mode);
  Container c;
  c.name = r.strict() ? r.f.string("name") : r.f.string("name", "");
  const std::string image = r.f.string("image", "");
  StringMap env;
  const auto items = items_of(r.f.get("env"), file, r.f.path_of("env"));
  for (std::size_t i = 0; i < items.size(); ++i) {
    Reader ef(items[i], file, indexed(r.f.path_of("env"), i), mode);
    const std::string name = ef.f.string("name");
    // valueFrom (secrets, field refs) has no value the simulator can know: recorded as "".
    ef.f.get("valueFrom");
    env[name] = ef.f.string("value", "");
    ef.finish();
  }
  if (first != nullptr) {
    first->image = image;
    first->env = std::move(env);
  }
  if (r.f.has("resources")) {
    Reader rr(r.f.get("resources"), file, r.f.path_of("resources"), mode);
    ResourceList req = read_resource_list(rr.f.get("requests"), file, rr.f.path_of("requests"));
    const ResourceList lim = read_resource_list(rr.f.get("limits"), file, rr.f.path_of("limits"));
    // API defaulting (SetDefaults_Pod / defaults.go): a resource with a limit and no request
    // requests its limit. A request written as "0" stays 0.
    if (!req.cpu && lim.cpu) {
      req.amounts.cpu_milli = lim.amounts.cpu_milli;
      req.cpu = true;
    }
    if (!req.memory && lim.memory) {
      req.amounts.memory_bytes = lim.amounts.memory_bytes;
      req.memory = true;
    }
    if (!req.gpus && lim.gpus) {
      req.amounts.gpus = lim.amounts.gpus;
      req.gpus = true;
    }
    for (const auto& [name, v] : lim.amounts.extended) {
      req.amounts.extended.emplace(name, v);
    }
    c.requests = req.amounts;
    c.limits = lim.amounts;
    c.cpu_set = req.cpu;
    c.memory_set = req.memory;
    rr.reject({"claims"}, "dynamic resource allocation is not modelled");
    rr.finish();
  }
  if (init) {
    // Only "Always" is valid on an init container: it makes the container a sidecar.
    c.restartable = r.f.choice("restartPolicy", "", {"", "Always"}) == "Always";
  } else {
    r.ignore({"restartPolicy"});
  }
  // envFrom could set AI_NV_LINK_REQUIRED from a ConfigMap the simulator cannot read.
  r.reject({"envFrom"}, "env from ConfigMaps/Secrets cannot be resolved; list env values");
  r.reject({"resizePolicy"}, "in-place resize is not modelled");
  r.ignore({"command", "args", "workingDir", "ports", "volumeMounts", "volumeDevices",
            "imagePullPolicy", "securityContext", "livenessProbe", "readinessProbe", "startupProbe",
            "lifecycle", "terminationMessagePath", "terminationMessagePolicy", "stdin", "stdinOnce",
            "tty"});
  r.finish();
  return c;
}

void set_amount(Resources& r, ResourceList& list, const std::string& name, const ConfigNode& value,
                const std::string& file, const std::string& path) {
  const std::string text = scalar_of(value, file, path);
  try {
    if (name == "cpu") {
      r.cpu_milli = parse_quantity(text, 3);
      list.cpu = true;
    } else if (name == "memory") {
      r.memory_bytes = parse_quantity(text);
      list.memory = true;
    } else if (name == "pods" || name == "ephemeral-storage" || name.starts_with("hugepages-")) {
      parse_quantity(text);  // checked, not modelled
    } else if (name == kGpuResource) {
      r.gpus = parse_integer_quantity(text);
      list.gpus = true;
    } else {
      r.extended[name] = parse_integer_quantity(text);
    }
  } catch (const QuantityError& e) {
    throw InputError(location_of(value, file), path, e.what());
  }
}

}  // namespace

LabelSelector read_label_selector(const ConfigNode& node, const std::string& file,
                                  const std::string& path, PodReadMode mode) {
  return label_selector(node, file, path, mode);
}

ResourceList read_resource_list(const ConfigNode& n, const std::string& file,
                                const std::string& path) {
  ResourceList out;
  if (!n || n.is_null()) {
    return out;
  }
  if (!n.is_map()) {
    throw InputError(location_of(n, file), path, "expected a mapping of resource names to amounts");
  }
  for (const auto& kv : n.entries()) {
    const std::string name = scalar_of(kv.first, file, path);
    set_amount(out.amounts, out, name, kv.second, file, path + "." + name);
  }
  return out;
}

void read_pod_metadata(const ConfigNode& n, const std::string& file, const std::string& path,
                       PodReadMode mode, std::string* name, PodSpec* pod) {
  Reader r(n, file, path, mode);
  const std::string generate = r.f.string("generateName", "");
  const std::string given = r.f.string("name", "");
  if (name != nullptr) {
    *name = given.empty() ? generate : given;
  }
  const std::string ns = r.f.string("namespace", "");
  const StringMap labels = string_map(r.f.get("labels"), file, r.f.path_of("labels"));
  const StringMap annotations =
      string_map(r.f.get("annotations"), file, r.f.path_of("annotations"));
  if (pod != nullptr) {
    if (!ns.empty()) {
      pod->namespace_name = ns;
    }
    pod->labels.insert(labels.begin(), labels.end());
    pod->annotations.insert(annotations.begin(), annotations.end());
  }
  r.ignore({"uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
            "deletionGracePeriodSeconds", "ownerReferences", "finalizers", "managedFields",
            "selfLink"});
  r.finish();
}

namespace {

// spec.containers (at least one; the first also gives the pod its image and env) and
// spec.initContainers, with the pod's limits and requests.
void read_containers(Fields& f, const std::string& file, PodReadMode mode, PodSpec& pod) {
  const auto containers = sequence_of(f.require("containers"), file, f.path_of("containers"));
  if (containers.empty()) {
    throw f.error(f.get("containers"), "containers", "at least one container is required");
  }
  pod.containers.emplace();
  pod.limits = Resources{};
  for (std::size_t i = 0; i < containers.size(); ++i) {
    pod.containers->push_back(container(containers[i], file, indexed(f.path_of("containers"), i),
                                        mode, false, i == 0 ? &pod : nullptr));
    pod.limits += pod.containers->back().limits;
  }
  pod.init_containers.clear();
  const auto inits = items_of(f.get("initContainers"), file, f.path_of("initContainers"));
  for (std::size_t i = 0; i < inits.size(); ++i) {
    pod.init_containers.push_back(
        container(inits[i], file, indexed(f.path_of("initContainers"), i), mode, true, nullptr));
  }
  pod.overhead = read_resource_list(f.get("overhead"), file, f.path_of("overhead")).amounts;
  pod.requests = pod_requests(pod);
}

// spec.affinity: node affinity, pod affinity and pod anti-affinity.
void read_affinity(Fields& f, const std::string& file, PodReadMode mode, PodSpec& pod) {
  if (!f.has("affinity")) {
    return;
  }
  Reader af(f.get("affinity"), file, f.path_of("affinity"), mode);
  if (af.f.has("nodeAffinity")) {
    pod.node_affinity =
        node_affinity(af.f.get("nodeAffinity"), file, af.f.path_of("nodeAffinity"), mode);
  }
  if (af.f.has("podAffinity")) {
    pod.pod_affinity =
        pod_affinity(af.f.get("podAffinity"), file, af.f.path_of("podAffinity"), mode);
  }
  if (af.f.has("podAntiAffinity")) {
    pod.pod_anti_affinity =
        pod_affinity(af.f.get("podAntiAffinity"), file, af.f.path_of("podAntiAffinity"), mode);
  }
  af.finish();
}

// spec.tolerations and spec.topologySpreadConstraints.
void read_tolerations_and_spread(Fields& f, const std::string& file, PodReadMode mode,
                                 PodSpec& pod) {
  const auto tols = items_of(f.get("tolerations"), file, f.path_of("tolerations"));
  for (std::size_t i = 0; i < tols.size(); ++i) {
    pod.tolerations.push_back(
        toleration(tols[i], file, indexed(f.path_of("tolerations"), i), mode));
  }
  const std::string sp = f.path_of("topologySpreadConstraints");
  const auto spreads = items_of(f.get("topologySpreadConstraints"), file, sp);
  for (std::size_t i = 0; i < spreads.size(); ++i) {
    pod.topology_spread.push_back(spread(spreads[i], file, indexed(sp, i), mode));
  }
}

// Where the priority fields are, for the caller that resolves priority classes; without one a
// manifest's priorityClassName needs spec.priority beside it.
void read_priority_fields(Reader& r, const std::string& file, const std::string& path,
                          PriorityFields* priority) {
  Fields& f = r.f;
  if (priority != nullptr) {
    priority->path = path;
    priority->class_name = f.string("priorityClassName", "");
    priority->class_where = location_of(f.get("priorityClassName"), file);
    priority->priority_given = f.has("priority");
    priority->priority_where = location_of(f.get("priority"), file);
    priority->policy_given = f.has("preemptionPolicy");
    priority->policy_where = location_of(f.get("preemptionPolicy"), file);
  } else if (r.strict() && f.has("priorityClassName") && !f.has("priority")) {
    throw f.error(f.get("priorityClassName"), "priorityClassName",
                  "not supported: priority classes are not resolved; give spec.priority");
  }
  f.get("priorityClassName");
}

// The pod spec's fields that would change scheduling but are not modelled (refused in a
// manifest).
void reject_unmodelled(Reader& r) {
  r.reject({"resources"}, "pod-level resources are not modelled; use container resources");
  r.reject({"resourceClaims"}, "dynamic resource allocation is not modelled");
  r.reject({"schedulingGates"}, "scheduling gates are not modelled");
  r.reject({"runtimeClassName"},
           "runtime classes (and their scheduling rules) are not modelled; give spec.overhead");
}

// The pod spec's fields that never change a simulated run.
void ignore_unscheduled(Reader& r) {
  r.ignore({"volumes",
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
            "ephemeralContainers",
            "readinessGates",
            "os",
            "hostUsers"});
}

}  // namespace

void read_pod_spec(const ConfigNode& n, const std::string& file, const std::string& path,
                   PodReadMode mode, PodSpec& pod, PriorityFields* priority) {
  Reader r(n, file, path, mode);
  Fields& f = r.f;
  read_containers(f, file, mode, pod);
  pod.scheduler_name = f.string("schedulerName", "default-scheduler");
  pod.node_selector = string_map(f.get("nodeSelector"), file, f.path_of("nodeSelector"));
  pod.node_name = f.string("nodeName", "");
  pod.priority =
      static_cast<std::int32_t>(f.integer("priority", 0, std::numeric_limits<std::int32_t>::min(),
                                          std::numeric_limits<std::int32_t>::max()));
  read_affinity(f, file, mode, pod);
  read_tolerations_and_spread(f, file, mode, pod);
  read_priority_fields(r, file, path, priority);
  reject_unmodelled(r);
  pod.restart_policy = f.choice("restartPolicy", "", {"", "Always", "OnFailure", "Never"});
  pod.preemption_policy =
      f.choice("preemptionPolicy", "PreemptLowerPriority", {"PreemptLowerPriority", "Never"});
  ignore_unscheduled(r);
  // The Workload API's group reference (KEP-4671): read by the manifest reader, which resolves it
  // against the Workload objects (workloads/manifest.cpp).
  r.ignore({"workloadRef"});
  r.finish();
}

}  // namespace tidesim
