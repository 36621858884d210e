#include "tidesim/sim/scenario/cluster_snapshot.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include <fmt/core.h>

#include "tidesim/sim/input/data_folder.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/scenario/kube_snapshot.hpp"
#include "tidesim/topologies/gpu_models.hpp"

namespace tidesim {
namespace {

constexpr const char* kProductLabel = "nvidia.com/gpu.product";
// What the node lifecycle controller taints a node with whose Ready condition is not True
// (TaintNodesByCondition: k8s.io/api core/v1 well_known_taints.go, TaintNodeNotReady).
constexpr const char* kNotReadyTaint = "node.kubernetes.io/not-ready";

bool in_catalogue(const std::string& name) {
  try {
    (void)gpu_model(name);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

struct GpuRule {
  std::string fallback;                       // `gpu`
  std::map<std::string, std::string> models;  // `gpu_models`: product label -> catalogue name
};

// The catalogue model of a node with GPUs: its product label mapped by `gpu_models`, else the
// label itself when it is a catalogue name, else `gpu`.
std::string model_of(const SnapshotNode& n, const GpuRule& rule) {
  const auto label = n.spec.labels.find(kProductLabel);
  if (label != n.spec.labels.end()) {
    if (const auto it = rule.models.find(label->second); it != rule.models.end()) {
      return it->second;
    }
    if (in_catalogue(label->second)) {
      return label->second;
    }
  }
  if (!rule.fallback.empty()) {
    return rule.fallback;
  }
  const std::string product = label == n.spec.labels.end()
                                  ? "no " + std::string(kProductLabel) + " label"
                                  : "product '" + label->second + "'";
  throw InputError(n.product_where, std::string("metadata.labels.") + kProductLabel,
                   fmt::format("node '{}' has {} nvidia.com/gpu and {}, which is not a GPU model "
                               "of the catalogue; name its model with cluster.snapshot.gpu_models "
                               "({{PRODUCT: MODEL}}) or cluster.snapshot.gpu",
                               n.spec.name, n.spec.allocatable.gpus, product));
}

GpuRule read_gpu_rule(Fields& f) {
  GpuRule rule;
  rule.fallback = f.string("gpu", "");
  if (!rule.fallback.empty() && !in_catalogue(rule.fallback)) {
    throw f.error(f.get("gpu"), "gpu", "unknown GPU model '" + rule.fallback + "'");
  }
  const ConfigNode models = f.get("gpu_models");
  rule.models = string_map(models, f.file(), f.path_of("gpu_models"));
  for (const auto& [product, model] : rule.models) {
    if (!in_catalogue(model)) {
      throw f.error(models[product], "gpu_models." + product, "unknown GPU model '" + model + "'");
    }
  }
  return rule;
}

SnapshotNodeConfig node_config(const SnapshotNode& n, const GpuRule& rule) {
  SnapshotNodeConfig c{
      .name = n.spec.name,
      .gpu_model = "",
      .gpus = static_cast<int>(std::min<std::int64_t>(n.spec.allocatable.gpus, 1'000'000)),
      .cpu_milli = n.spec.allocatable.cpu_milli,
      .memory_bytes = n.spec.allocatable.memory_bytes,
      .labels = n.spec.labels,
      .taints = n.spec.taints,
      .unschedulable = n.spec.unschedulable,
      .where = n.where};
  if (c.gpus > 0) {
    c.gpu_model = model_of(n, rule);
  }
  const bool tainted = std::any_of(c.taints.begin(), c.taints.end(),
                                   [](const Taint& t) { return t.key == kNotReadyTaint; });
  if (!n.ready && !tainted) {
    c.taints.push_back(Taint{.key = kNotReadyTaint, .value = "", .effect = "NoSchedule"});
  }
  return c;
}

// The pods bound to a node of the snapshot and not finished; the others bound elsewhere are
// counted in a warning.
void running_pods(const KueueSnapshot& s, ClusterSnapshotConfig& out) {
  std::set<std::string> nodes;
  for (const auto& n : out.nodes) {
    nodes.insert(n.name);
  }
  int elsewhere = 0;
  std::string first;
  for (const SnapshotPod& p : s.pod_objects) {
    if (p.spec->node_name.empty() || p.phase == "Succeeded" || p.phase == "Failed") {
      continue;  // pending (not bound) or finished: holds nothing
    }
    if (!nodes.contains(p.spec->node_name)) {
      first = elsewhere++ == 0 ? p.spec->namespace_name + "/" + p.spec->name : first;
      continue;
    }
    // Named namespace/name: no pod of a job has a '/' in its name, so a job's pod that takes the
    // name of a snapshot's pod is never taken for it.
    auto spec = std::make_shared<PodSpec>(*p.spec);
    spec->name = p.spec->namespace_name + "/" + p.spec->name;
    out.pods.push_back(RunningPod{.node = p.spec->node_name,
                                  .pod = std::move(spec),
                                  .runs_for = p.runs_for,
                                  .where = p.where});
  }
  if (elsewhere > 0) {
    out.warnings.push_back(format_input_error(
        out.where, "cluster.snapshot",
        fmt::format("{} running pod(s) are bound to nodes not in the snapshot (the first: '{}'); "
                    "they are left out",
                    elsewhere, first)));
  }
}

// The snapshot's Kueue and Volcano objects, without its nodes and pods.
std::shared_ptr<const KueueSnapshot> kueue_objects(KueueSnapshot&& s) {
  auto out = std::make_shared<KueueSnapshot>();
  out->topologies = std::move(s.topologies);
  out->flavors = std::move(s.flavors);
  out->cluster_queues = std::move(s.cluster_queues);
  out->local_queues = std::move(s.local_queues);
  out->topology_where = std::move(s.topology_where);
  out->local_queue_where = std::move(s.local_queue_where);
  out->cluster_queue_objects = std::move(s.cluster_queue_objects);
  out->hypernodes = std::move(s.hypernodes);
  return out;
}

}  // namespace

ClusterSnapshotConfig parse_cluster_snapshot(const ConfigNode& node, const std::string& file,
                                             const std::string& folder) {
  ClusterSnapshotConfig out;
  out.where = location_of(node, file);
  const std::string path = "cluster.snapshot";
  std::string rel;
  GpuRule rule;
  std::optional<Duration> runs_for;
  ConfigNode file_node = node;
  if (node.is_scalar()) {
    rel = node.scalar();
  } else {
    Fields f(node, file, path);
    rel = f.string("file");
    file_node = f.get("file");
    rule = read_gpu_rule(f);
    out.topology = f.string("topology", "");
    const std::string until = f.string("runs_for", "forever");
    if (until != "forever") {
      runs_for = f.duration("runs_for", std::nullopt);
    }
    f.finish();
  }
  out.path = input_path(folder, rel);
  std::error_code ec;
  if (rel.empty() || !std::filesystem::exists(out.path, ec)) {
    throw InputError(location_of(file_node, file), node.is_scalar() ? path : path + ".file",
                     "snapshot '" + rel + "' not found (looked at " + out.path + ")");
  }
  KueueSnapshot s = read_kueue_snapshot(out.path);
  std::set<std::string> names;
  for (const SnapshotNode& n : s.node_objects) {
    if (!names.insert(n.spec.name).second) {
      throw InputError(n.where, "metadata.name",
                       "a node named '" + n.spec.name + "' is already in the snapshot");
    }
    out.nodes.push_back(node_config(n, rule));
  }
  if (out.nodes.empty()) {
    throw InputError(out.where, path, "the snapshot '" + rel + "' has no Node objects");
  }
  running_pods(s, out);
  for (RunningPod& p : out.pods) {
    p.runs_for = p.runs_for ? p.runs_for : runs_for;
  }
  out.objects = kueue_objects(std::move(s));
  return out;
}

}  // namespace tidesim
