#include "tidesim/sim/scenario/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>

#include "tidesim/policies/loaded_profile.hpp"
#include "tidesim/sim/admission/job_policy_registry.hpp"
#include "tidesim/sim/engine/random.hpp"
#include "tidesim/sim/input/data_folder.hpp"
#include "tidesim/sim/input/did_you_mean.hpp"
#include "tidesim/sim/input/text_file.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/metrics/catalog.hpp"
#include "tidesim/sim/scenario/kube_snapshot.hpp"
#include "tidesim/sim/scenario/quota_config.hpp"
#include "tidesim/topologies/fabric.hpp"
#include "tidesim/topologies/gpu_models.hpp"
#include "tidesim/topologies/gpu_node.hpp"
#include "tidesim/topologies/mig.hpp"
#include "tidesim/topologies/presets.hpp"
#include "tidesim/workloads/trace.hpp"

namespace tidesim {
namespace {

namespace fs = std::filesystem;

StorageConfig parse_storage(const ConfigNode& node, const std::string& file,
                            const std::string& path, const std::string& default_name) {
  Fields f(node, file, path);
  StorageConfig s;
  s.name = f.string("name", default_name);
  // Defaults: a PCIe 4.0 x4 NVMe reads up to about 7 GB/s (CALIBRATION.md "Storage"); a 4 KB
  // random read costs about 150 us on an SSD (same source). Both are scenario parameters.
  s.bandwidth = f.bandwidth("bandwidth", 7e9, 1.0);
  s.latency = f.duration("latency", std::chrono::microseconds(150), std::chrono::microseconds(1));
  f.finish();
  return s;
}

// A node group's `sharing` (docs/scenarios.md): mode, and under time-slicing the device plugin's
// replicas, replica policy and tie-break, the slicing rule, the interference share, and declared
// memory.
// A node's uplink when its group writes none: the compute NICs of the machine its topology preset
// describes, at the NIC efficiency collectives reach (docs/scenarios.md, `uplink`); otherwise
// 25 Gbit/s Ethernet (an assumption; a g5.12xlarge lists 40 Gbit/s).
double default_uplink(const std::string& topology) {
  if (const auto network = preset_network(topology)) {
    return network->nics * network->nic_bandwidth * kDefaultNicEfficiency;
  }
  return 25e9 / 8.0;
}

void parse_sharing(const ConfigNode& node, const std::string& file, const std::string& path,
                   NodeGroup& g) {
  Fields s(node, file, path);
  g.sharing = *parse_sharing_mode(
      s.choice("mode", "exclusive", {"exclusive", "time-slicing", "fractional", "mig"}));
  const bool mig = g.sharing == SharingMode::kMig;
  for (const char* key : {"layout", "strategy"}) {
    if (!mig && s.has(key)) {
      throw s.error(s.get(key), key, "only mig has this setting");
    }
  }
  if (mig) {
    // MIG (docs/scenarios.md): every card of the group partitioned into `layout`'s GPU
    // instances, advertised under the device plugin's `strategy`.
    if (g.gpu_model.empty()) {
      throw s.error(s.get("mode"), "mode", "mig needs the group's `gpu` model");
    }
    const ConfigNode layout = s.require("layout");
    for (const ConfigNode& p : sequence_of(layout, file, s.path_of("layout"))) {
      if (!p.is_scalar()) {
        throw s.error(p, "layout", "each entry is a profile name such as 1g.5gb");
      }
      g.mig_layout.push_back(p.scalar());
    }
    if (const auto why = mig_layout_error(gpu_model(g.gpu_model), g.mig_layout)) {
      throw s.error(layout, "layout", *why);
    }
    g.mig_single = s.choice("strategy", "mixed", {"mixed", "single"}) == "single";
    if (g.mig_single &&
        std::any_of(g.mig_layout.begin(), g.mig_layout.end(),
                    [&](const std::string& p) { return p != g.mig_layout.front(); })) {
      throw s.error(s.get("strategy"), "strategy",
                    "the single strategy needs every instance of one profile (the device "
                    "plugin's rule); use mixed");
    }
  }
  g.replicas = static_cast<int>(s.integer("replicas", 1, 1, 64));
  const bool sliced = g.sharing == SharingMode::kTimeSlicing;
  if (!sliced && g.replicas != 1) {
    throw s.error(s.get("replicas"), "replicas", "only time-slicing has replicas");
  }
  for (const char* key :
       {"policy", "tie_break", "slicing", "interference", "declared_memory", "isolate_memory"}) {
    if (!sliced && s.has(key)) {
      throw s.error(s.get(key), key, "only time-slicing has this setting");
    }
  }
  g.replica_policy = s.choice("policy", "distributed", {"distributed", "packed"}) == "packed"
                         ? ReplicaPolicy::kPacked
                         : ReplicaPolicy::kDistributed;
  g.tie_break =
      s.choice("tie_break", "lowest-index", {"lowest-index", "device-plugin"}) == "device-plugin"
          ? TieBreak::kDevicePlugin
          : TieBreak::kLowestIndex;
  g.slicing =
      *parse_slice_model(s.choice("slicing", "work-conserving", {"work-conserving", "equal"}));
  // Below 1: a card that loses all its compute to sharing would never finish a step.
  g.interference = s.number("interference", 0.0, 0.0, 0.9);
  g.declared_memory = s.boolean("declared_memory", false);
  g.isolate_memory = s.boolean("isolate_memory", false);
  if (g.isolate_memory && !g.declared_memory) {
    throw s.error(s.get("isolate_memory"), "isolate_memory", "needs declared_memory: true");
  }
  s.finish();
}

NodeGroup parse_group(const ConfigNode& node, const std::string& file, const std::string& path) {
  Fields f(node, file, path);
  NodeGroup g;
  g.where = location_of(node, file);
  g.name = f.string("name");
  if (g.name.empty()) {
    throw f.error(f.get("name"), "name", "must not be empty");
  }
  g.count = static_cast<int>(f.integer("count", 1, 1, kMaxNodes));
  g.gpu_model = f.string("gpu");
  if (!g.gpu_model.empty()) {
    try {
      (void)gpu_model(g.gpu_model);  // the one GPU catalogue (topologies/gpu_models.hpp)
    } catch (const InputError& e) {
      throw f.error(f.get("gpu"), "gpu", e.message());
    }
  }
  g.topology = f.string("topology");
  g.gpu_memory = f.bytes("gpu_memory", 0);
  if (const ConfigNode sharing = f.get("sharing")) {
    parse_sharing(sharing, file, f.path_of("sharing"), g);
  }
  // Default CPU: an assumption of 32 cores (a g5.12xlarge-class host has 48 vCPUs).
  g.cpu_milli = f.milli_quantity("cpu", 32'000);
  g.memory_bytes = f.bytes("memory", 192LL << 30);
  g.labels = string_map(f.get("labels"), file, f.path_of("labels"));
  if (const ConfigNode taints = f.get("taints")) {
    int i = 0;
    for (const auto& t : sequence_of(taints, file, f.path_of("taints"))) {
      Fields tf(t, file, fmt::format("{}[{}]", f.path_of("taints"), i++));
      Taint taint;
      taint.key = tf.string("key");
      taint.value = tf.string("value", "");
      taint.effect =
          tf.choice("effect", std::nullopt, {"NoSchedule", "PreferNoSchedule", "NoExecute"});
      tf.finish();
      g.taints.push_back(taint);
    }
  }
  g.unschedulable = f.boolean("unschedulable", false);
  g.storage = parse_storage(f.get("storage"), file, f.path_of("storage"), "nvme0n1");
  g.uplink_given = f.has("uplink");
  g.uplink_bandwidth = f.bandwidth("uplink", default_uplink(g.topology), 1.0);
  f.finish();
  return g;
}

// `cluster.nodes_from`: one exact-name group per row of an openb node list. Errors in the list
// name the CSV's line and column; errors in the section name the scenario's.
std::vector<NodeGroup> parse_nodes_from(const ConfigNode& node, const std::string& file,
                                        const std::string& folder, NodesFrom& out) {
  const std::string path = "cluster.nodes_from";
  Fields f(node, file, path);
  out.where = location_of(node, file);
  const std::string rel = f.string("file");
  out.format = f.choice("format", std::nullopt, {"openb"});
  NodeGroup base;
  if (const ConfigNode sharing = f.get("sharing")) {
    parse_sharing(sharing, file, f.path_of("sharing"), base);
  }
  const std::string topology = f.string("topology", "");
  base.labels = string_map(f.get("labels"), file, f.path_of("labels"));
  base.storage = parse_storage(f.get("storage"), file, f.path_of("storage"), "nvme0n1");
  base.uplink_given = f.has("uplink");
  base.uplink_bandwidth = f.bandwidth("uplink", default_uplink(topology), 1.0);
  const std::string resolved = input_path(folder, rel);
  std::error_code ec;  // a name too long for the file system is not found, at its place
  if (!fs::is_regular_file(resolved, ec)) {
    throw f.error(f.get("file"), "file",
                  "node list '" + rel + "' not found (looked at " + resolved + ")");
  }
  f.finish();
  out.file = resolved;
  std::vector<NodeGroup> groups;
  for (const auto& n : workloads::read_openb_nodes(out.file)) {
    NodeGroup g = base;
    g.name = n.name;
    g.exact_name = true;
    g.where = n.name_where;
    g.gpus = n.gpus;
    g.cpu_milli = n.cpu_milli;
    g.memory_bytes = n.memory_bytes;
    if (n.gpus > 0) {
      try {
        g.gpu_model = std::string(gpu_model(n.gpu_model).name);
      } catch (const InputError& e) {
        throw InputError(n.model_where, "model", e.message());
      }
      g.labels["tidesim.io/gpu-model"] = n.gpu_model;
    }
    g.topology = topology.empty() ? fmt::format("pcie-{}", n.gpus) : topology;
    groups.push_back(std::move(g));
  }
  out.nodes = static_cast<int>(groups.size());
  return groups;
}

// `cluster.snapshot`'s nodes as exact-name groups (docs/scenarios.md): its `topology` for every
// node with GPUs, else `pcie-<gpus>`; storage and uplink as a node group's defaults.
std::vector<NodeGroup> snapshot_groups(const ClusterSnapshotConfig& snapshot,
                                       const std::string& file) {
  std::vector<NodeGroup> groups;
  for (const SnapshotNodeConfig& n : snapshot.nodes) {
    NodeGroup g;
    g.name = n.name;
    g.exact_name = true;
    g.where = n.where;
    g.gpus = n.gpus;
    g.gpu_model = n.gpu_model;
    g.cpu_milli = n.cpu_milli;
    g.memory_bytes = n.memory_bytes;
    g.labels = n.labels;
    g.taints = n.taints;
    g.unschedulable = n.unschedulable;
    g.topology = n.gpus > 0 && !snapshot.topology.empty() ? snapshot.topology
                                                          : fmt::format("pcie-{}", n.gpus);
    g.storage = parse_storage(ConfigNode(), file, "cluster.snapshot", "nvme0n1");
    g.uplink_bandwidth = default_uplink(g.topology);
    groups.push_back(std::move(g));
  }
  return groups;
}

// Reads `cluster.snapshot` into `c`: its nodes after the groups' (a name taken by a group's node
// is refused at the Node), its running pods and its warnings.
void add_snapshot(const ConfigNode& node, const std::string& file, const std::string& folder,
                  ClusterConfig& c) {
  c.snapshot = parse_cluster_snapshot(node, file, folder);
  std::set<std::string> node_names;
  for (const auto& g : c.groups) {
    for (int k = 1; k <= g.count; ++k) {
      node_names.insert(node_name(g, k));
    }
  }
  for (auto& g : snapshot_groups(*c.snapshot, file)) {
    if (!node_names.insert(g.name).second) {
      throw InputError(g.where, "metadata.name", "a node named '" + g.name + "' already exists");
    }
    c.groups.push_back(std::move(g));
  }
  c.warnings.insert(c.warnings.end(), c.snapshot->warnings.begin(), c.snapshot->warnings.end());
}

constexpr const char* kUplinkAndFabric =
    "an uplink and cluster.fabric both set the network between nodes: the fabric gives every node "
    "its NICs (nics_per_node, nic_bandwidth); remove one";

ClusterConfig parse_cluster(const ConfigNode& node, const std::string& file,
                            const std::string& folder) {
  Fields f(node, file, "cluster");
  ClusterConfig c;
  int i = 0;
  std::set<std::string> names;
  const ConfigNode from = f.get("nodes_from");
  const ConfigNode snapshot = f.get("snapshot");
  const ConfigNode fabric_node = f.get("fabric");
  const ConfigNode groups = from || snapshot ? f.get("node_groups") : f.require("node_groups");
  if (groups) {
    for (const auto& g : sequence_of(groups, file, "cluster.node_groups")) {
      const std::string path = fmt::format("cluster.node_groups[{}]", i++);
      NodeGroup group = parse_group(g, file, path);
      if (fabric_node && group.uplink_given) {
        throw InputError(location_of(g["uplink"], file), path + ".uplink", kUplinkAndFabric);
      }
      // "memory: 192" is 192 bytes, as Kubernetes reads it; under 1 MiB no pod with a memory
      // request fits, so it is hardly what was meant (192Gi?).
      if (const ConfigNode memory = g["memory"]; memory && group.memory_bytes < (1LL << 20)) {
        const std::string text = memory.is_scalar() ? memory.scalar() : "";
        const bool bare =
            group.memory_bytes > 0 &&
            std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        c.warnings.push_back(format_input_error(
            location_of(memory, file), path + ".memory",
            bare ? fmt::format("{} bytes is less than 1 MiB; a number without a unit is bytes "
                               "(did you mean {}Gi?)",
                               text, text)
                 : fmt::format("'{}' is {} bytes, less than 1 MiB", text, group.memory_bytes)));
      }
      if (!names.insert(group.name).second) {
        throw InputError(group.where, "cluster.node_groups",
                         "two groups are named '" + group.name + "'");
      }
      c.groups.push_back(std::move(group));
    }
  }
  if (from) {
    NodesFrom nf;
    std::set<std::string> node_names;
    for (const auto& g : c.groups) {
      for (int k = 1; k <= g.count; ++k) {
        node_names.insert(node_name(g, k));
      }
    }
    for (auto& g : parse_nodes_from(from, file, folder, nf)) {
      if (!node_names.insert(g.name).second) {
        throw InputError(g.where, "sn", "a node named '" + g.name + "' already exists");
      }
      c.groups.push_back(std::move(g));
    }
    if (nf.nodes == 0) {
      throw f.error(from, "nodes_from", "the node list '" + nf.file + "' has no nodes");
    }
    c.nodes_from = nf;
  }
  if (snapshot) {
    add_snapshot(snapshot, file, folder, c);
  }
  if (c.groups.empty()) {
    throw f.error(f.get("node_groups"), "node_groups", "needs at least one node group");
  }
  // Each group is at most kMaxNodes; so is the whole cluster (10,000 groups of 100,000 passed
  // each group's limit).
  std::int64_t total = 0;
  for (const auto& g : c.groups) {
    total += g.count;
    if (total > kMaxNodes) {
      throw InputError(
          g.where, "cluster",
          fmt::format("the cluster has more than {} nodes (group '{}' brings it to {})", kMaxNodes,
                      g.name, total));
    }
  }
  if (const ConfigNode shared = f.get("shared_storage")) {
    c.shared_storage = parse_storage(shared, file, "cluster.shared_storage", "nfs");
  }
  if (fabric_node) {
    c.fabric = parse_fabric(fabric_node, file, "cluster.fabric");
    if (from && from["uplink"]) {
      throw InputError(location_of(from["uplink"], file), "cluster.nodes_from.uplink",
                       kUplinkAndFabric);
    }
  }
  c.max_await_ms = f.number("max_await_ms", 500.0, 1.0, 1e6);
  f.finish();
  return c;
}

// The policy's `args:` of the `admission:` mapping `f` into `a`: decoded into its typed args
// by the entry's decoder (each error at its field), else kept as strings.
void read_policy_args(Fields& f, const JobPolicyEntry& entry, AdmissionConfig& a) {
  if (entry.decode) {
    Fields args(f.get("args"), f.file(), f.path_of("args"));
    a.typed_args = entry.decode(args);
    args.finish();
    return;
  }
  const ConfigNode args = f.get("args");
  if (!args) {
    return;
  }
  if (!args.is_map()) {
    throw f.error(args, "args", "expected a mapping of the policy's parameters");
  }
  for (const auto& [k, value] : args.entries()) {
    const std::string key = k.scalar();
    if (!value.is_scalar()) {
      throw f.error(value, "args." + key, "expected a scalar (a number, a word or a string)");
    }
    a.args[key] = value.scalar();
  }
}

// `hypernodes: {from_snapshot: true}`: the HyperNode objects of cluster.snapshot.
volcano::HyperNodeSource snapshot_hypernodes(const ConfigNode& h, const std::string& file,
                                             const std::string& path,
                                             const KueueSnapshot* snapshot) {
  Fields f(h, file, path);
  if (!f.boolean("from_snapshot")) {
    throw f.error(f.get("from_snapshot"), "from_snapshot",
                  "false means nothing here: give from_labels, file or a list instead");
  }
  if (!snapshot || snapshot->hypernodes.empty()) {
    throw f.error(f.get("from_snapshot"), "from_snapshot",
                  snapshot ? "the cluster snapshot has no HyperNode objects"
                           : "takes the HyperNodes of cluster.snapshot, which this scenario does "
                             "not have");
  }
  f.finish();
  volcano::HyperNodeSource src;
  src.listed = snapshot->hypernodes;
  src.where = location_of(h, file);
  src.path = path;
  return src;
}

// A policy entry's `admission:` mapping (docs/scenarios.md, docs/job-scheduling.md).
AdmissionConfig parse_admission(const ConfigNode& n, const std::string& file,
                                const std::string& path, const std::string& folder,
                                const JobPolicyRegistryPtr& registry,
                                const KueueSnapshot* snapshot) {
  Fields f(n, file, path);
  AdmissionConfig a;
  a.where = location_of(n, file);
  a.registry = registry;
  a.policy = f.choice("policy", std::nullopt, registry->names());
  const JobPolicyEntry& entry = *registry->find(a.policy);
  // A key the chosen policy does not read is an error naming the policies that read it.
  const auto only = [&f, &a, &registry](const std::string& key, AdmissionKey which) {
    if (!f.has(key)) {
      return;
    }
    std::vector<std::string> names;
    for (const std::string& name : registry->names()) {
      const JobPolicyEntry* e = registry->find(name);
      if (e && std::find(e->keys.begin(), e->keys.end(), which) != e->keys.end()) {
        if (e->name == a.policy) {
          return;
        }
        names.push_back(name);
      }
    }
    std::string readers;  // "a", "a or b", "a, b or c"
    for (std::size_t i = 0; i < names.size(); ++i) {
      readers += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    }
    throw f.error(f.get(key), key,
                  (readers.empty() ? std::string("applies only to policies a program registers")
                                   : "applies only to policy " + readers) +
                      " (this one is " + a.policy + ")");
  };
  only("backfill", AdmissionKey::kBackfill);
  a.backfill = f.boolean("backfill", true);
  only("interval", AdmissionKey::kInterval);
  a.interval = f.duration("interval", std::chrono::seconds(60), std::chrono::milliseconds(1));
  only("thresholds_gpu_s", AdmissionKey::kThresholds);
  if (const ConfigNode t = f.get("thresholds_gpu_s")) {
    a.thresholds.clear();
    const auto items = sequence_of(t, file, f.path_of("thresholds_gpu_s"));
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string item = fmt::format("thresholds_gpu_s[{}]", i);
      double v = 0;
      std::size_t used = 0;
      try {
        v = items[i].is_scalar() ? std::stod(items[i].scalar(), &used) : 0;
      } catch (const std::exception&) {
        used = 0;
      }
      if (!items[i].is_scalar() || used != items[i].scalar().size() || !std::isfinite(v) ||
          v <= 0 || v > 1e15) {
        throw f.error(items[i], item, "expected a number of GPU-seconds in (0, 1e15]");
      }
      if (!a.thresholds.empty() && v <= a.thresholds.back()) {
        throw f.error(items[i], item, "thresholds must increase");
      }
      a.thresholds.push_back(v);
    }
    if (a.thresholds.empty()) {
      throw f.error(t, "thresholds_gpu_s", "needs at least one threshold");
    }
  }
  only("starvation_limit", AdmissionKey::kStarvationLimit);
  a.starvation_limit = f.number("starvation_limit", 0.0, 0.0, 1e6);
  a.consolidate = f.boolean("consolidate", entry.consolidate_by_default);
  only("estimate_sigma", AdmissionKey::kEstimateSigma);
  a.estimate_sigma = f.number("estimate_sigma", 0.0, 0.0, 10.0);
  only("hypernodes", AdmissionKey::kHyperNodes);
  if (const ConfigNode h = f.get("hypernodes")) {
    a.hypernodes = std::make_shared<const volcano::HyperNodeSource>(
        h.is_map() && h["from_snapshot"]
            ? snapshot_hypernodes(h, file, f.path_of("hypernodes"), snapshot)
            : volcano::read_hypernode_source(h, file, f.path_of("hypernodes"), folder));
  }
  only("args", AdmissionKey::kArgs);
  read_policy_args(f, entry, a);
  if (const ConfigNode q = f.get("queues")) {
    a.quotas = parse_queues(q, file, f.path_of("queues"), snapshot);
  }
  // The policy reads its own arguments when it is built: build it once here, so that a bad
  // argument is an input error with its place (at `args:`, else at `policy:`), not a failed run.
  try {
    registry->make(a);
  } catch (const std::invalid_argument& e) {
    const std::string key = f.has("args") ? "args" : "policy";
    throw f.error(f.get(key), key, e.what());
  }
  if (a.quotas && !entry.ordered) {
    throw f.error(f.get("queues"), "queues",
                  "policy '" + a.policy +
                      "' does not order jobs, which queues need (fifo, sjf, "
                      "srtf and tiresias do)");
  }
  f.finish();
  return a;
}

std::vector<PolicyConfig> parse_policies(const ConfigNode& node, const std::string& file,
                                         const std::string& folder,
                                         const policies::RegistryPtr& registry,
                                         const JobPolicyRegistryPtr& job_policies,
                                         const KueueSnapshot* snapshot) {
  std::vector<PolicyConfig> out;
  int i = 0;
  std::set<std::string> names;
  for (const auto& p : sequence_of(node, file, "policies")) {
    const std::string path = fmt::format("policies[{}]", i++);
    PolicyConfig pc;
    ConfigNode scheduler = p;  // where the scheduler is named
    std::string scheduler_path = path;
    if (p.is_scalar()) {
      pc.name = p.scalar();
      pc.scheduler = p.scalar();
    } else {
      Fields f(p, file, path);
      pc.scheduler = f.string("scheduler");
      scheduler = f.get("scheduler");
      scheduler_path = f.path_of("scheduler");
      pc.name = f.string("name", pc.scheduler);
      if (const ConfigNode a = f.get("admission")) {
        pc.admission =
            parse_admission(a, file, path + ".admission", folder, job_policies, snapshot);
      }
      f.finish();
    }
    // Loaded once, here: a file is resolved against the scenario's folder, and an unknown name
    // is refused at its place.
    policies::ProfilePlace place;
    place.where = location_of(scheduler, file);
    place.field = scheduler_path;
    place.folder = folder;
    place.registry = registry;
    pc.profile = policies::load_profile(pc.scheduler, place);
    if (!pc.profile->builtin) {
      pc.scheduler = pc.profile->path;
    }
    if (!names.insert(pc.name).second) {
      throw InputError(location_of(p, file), path, "policy '" + pc.name + "' is listed twice");
    }
    out.push_back(pc);
  }
  if (out.empty()) {
    throw InputError(location_of(node, file), "policies", "needs at least one policy");
  }
  return out;
}

std::vector<std::uint64_t> parse_seeds(const ConfigNode& node, const std::string& file) {
  std::vector<std::uint64_t> seeds;
  if (!node) {
    return {1};
  }
  if (node.is_scalar()) {
    // "seeds: 10" means seeds 1..10.
    long long n = 0;
    try {
      std::size_t used = 0;
      n = std::stoll(node.scalar(), &used);
      if (used != node.scalar().size()) {
        n = -1;
      }
    } catch (const std::exception&) {
      n = -1;
    }
    if (n < 1 || n > 10000) {
      throw InputError(location_of(node, file), "seeds",
                       "'" + node.scalar() + "' must be a count in [1, 10000] or a list of seeds");
    }
    for (long long s = 1; s <= n; ++s) {
      seeds.push_back(static_cast<std::uint64_t>(s));
    }
    return seeds;
  }
  int i = 0;
  for (const auto& s : sequence_of(node, file, "seeds")) {
    std::uint64_t v = 0;
    try {
      std::size_t used = 0;
      v = std::stoull(s.scalar(), &used);
      if (used != s.scalar().size() || s.scalar().starts_with("-")) {
        throw std::invalid_argument("bad");
      }
    } catch (const std::exception&) {
      throw InputError(location_of(s, file), fmt::format("seeds[{}]", i),
                       "'" + s.scalar() + "' is not a non-negative integer");
    }
    // A seed twice is the same replica twice: it would count as two seeds with a +- 0 interval.
    if (const auto first = std::find(seeds.begin(), seeds.end(), v); first != seeds.end()) {
      throw InputError(location_of(s, file), fmt::format("seeds[{}]", i),
                       fmt::format("seed {} is listed twice (also seeds[{}]); each seed is one "
                                   "replica",
                                   v, first - seeds.begin()));
    }
    ++i;
    seeds.push_back(v);
  }
  if (seeds.empty()) {
    throw InputError(location_of(node, file), "seeds", "needs at least one seed");
  }
  return seeds;
}

TelemetryConfig parse_telemetry(const ConfigNode& node, const std::string& file,
                                const std::set<std::string>& node_names) {
  Fields f(node, file, "telemetry");
  TelemetryConfig t;
  t.sample_interval =
      f.duration("sample_interval", t.sample_interval, std::chrono::milliseconds(1));
  t.scrape_interval =
      f.duration("scrape_interval", t.scrape_interval, std::chrono::milliseconds(1));
  t.query_latency = f.duration("query_latency", t.query_latency);
  t.query_timeout = f.duration("query_timeout", t.query_timeout);
  if (const ConfigNode outages = f.get("outages")) {
    int i = 0;
    for (const auto& o : sequence_of(outages, file, "telemetry.outages")) {
      Fields of(o, file, fmt::format("telemetry.outages[{}]", i++));
      PrometheusOutage po;
      po.start = TimePoint(of.duration("start", std::nullopt));
      po.end = TimePoint(of.duration("end", std::nullopt));
      if (of.has("latency")) {
        po.latency = of.duration("latency", std::nullopt);
      }
      of.finish();
      if (po.end <= po.start) {
        throw of.error(of.get("end"), "end", "must be after start");
      }
      t.outages.push_back(po);
    }
  }
  if (const ConfigNode silent = f.get("silent_agents")) {
    int i = 0;
    for (const auto& s : sequence_of(silent, file, "telemetry.silent_agents")) {
      Fields sf(s, file, fmt::format("telemetry.silent_agents[{}]", i++));
      SilentAgent sa;
      sa.node = sf.string("node");
      if (!node_names.contains(sa.node)) {
        throw sf.error(sf.get("node"), "node", "no node is called '" + sa.node + "'");
      }
      sa.start = TimePoint(sf.duration("start", Duration::zero()));
      sa.end = TimePoint(sf.duration("end", std::nullopt));
      sf.finish();
      if (sa.end <= sa.start) {
        throw sf.error(sf.get("end"), "end", "must be after start");
      }
      t.silent_agents.push_back(sa);
    }
  }
  f.finish();
  return t;
}

RunConfig parse_run(const ConfigNode& node, const std::string& file) {
  Fields f(node, file, "run");
  RunConfig r;
  r.until = f.duration("until", r.until, std::chrono::seconds(1));
  r.cycle_time = f.duration("cycle_time", r.cycle_time);
  r.pod_startup = f.duration("pod_startup", r.pod_startup);
  r.sample_interval =
      f.duration("sample_interval", r.sample_interval, std::chrono::milliseconds(1));
  // Every sample is kept (series, CSV, charts): the horizon bounds their number.
  if (r.until / r.sample_interval > kMaxSamples) {
    throw f.error(f.has("sample_interval") ? f.get("sample_interval") : f.get("until"),
                  f.has("sample_interval") ? "sample_interval" : "until",
                  fmt::format("until / sample_interval = {} samples; at most {} (make the interval "
                              "longer or the horizon shorter)",
                              r.until / r.sample_interval, kMaxSamples));
  }
  r.ftf_all_jobs = f.choice("ftf_contention", "themis", {"themis", "all-jobs"}) == "all-jobs";
  if (f.has("job_window")) {
    Fields w(f.get("job_window"), file, f.path_of("job_window"));
    const long first = static_cast<long>(w.integer("first", std::nullopt, 0, 1'000'000'000));
    const long last = static_cast<long>(w.integer("last", std::nullopt, 0, 1'000'000'000));
    if (last < first) {
      throw w.error(w.get("last"), "last", "the window's last job comes before its first");
    }
    w.finish();
    r.job_window = std::make_pair(first, last);
  }
  r.mode = f.choice("mode", "time-driven", {"time-driven", "fill"}) == "fill"
               ? RunMode::kFill
               : RunMode::kTimeDriven;
  r.tune = f.number("tune", r.tune, 0.0, 100.0);
  r.tune_where = f.has("tune") ? location_of(f.get("tune"), file) : SourceLocation{file, 0, 0};
  r.randomness = f.choice("randomness", "tidesim", {"tidesim", "go-math-rand"}) == "go-math-rand"
                     ? FillRandomness::kGoMathRand
                     : FillRandomness::kTidesim;
  if (f.has("preemption")) {
    Fields p(f.get("preemption"), file, f.path_of("preemption"));
    r.preemption = p.boolean("enabled", true);
    r.termination_grace_period = p.duration("grace_period", r.termination_grace_period);
    p.finish();
  }
  r.gang_capacity_gate = f.boolean("gang_capacity_gate", false);
  r.queueing_hints =
      f.choice("queueing_hints", "kubernetes", {"kubernetes", "precise"}) == "precise"
          ? policies::QueueingHints::kPrecise
          : policies::QueueingHints::kKubernetes;
  if (r.mode != RunMode::kFill && (f.has("tune") || f.has("randomness"))) {
    const std::string key = f.has("tune") ? "tune" : "randomness";
    throw f.error(f.get(key), key, "only run.mode: fill reads " + key);
  }
  f.finish();
  return r;
}

std::vector<ReferenceFigure> parse_reference(const ConfigNode& node, const std::string& file,
                                             const std::vector<PolicyConfig>& policies,
                                             std::string& source) {
  std::vector<ReferenceFigure> out;
  if (!node) {
    return out;
  }
  Fields f(node, file, "reference");
  source = f.string("source", "");
  const ConfigNode metrics = f.require("metrics");
  f.finish();
  if (!metrics.is_map()) {
    throw InputError(location_of(metrics, file), "reference.metrics", "expected a mapping");
  }
  for (const auto& kv : metrics.entries()) {
    ReferenceFigure r;
    if (!kv.first.is_scalar() || metrics::find_metric(kv.first.scalar()) == nullptr) {
      // A misspelt name was accepted and showed "-" beside every result.
      throw InputError(location_of(kv.first, file),
                       "reference.metrics." + (kv.first.is_scalar() ? kv.first.scalar() : ""),
                       "unknown metric (docs/metrics.md lists them)");
    }
    r.metric = kv.first.scalar();
    Fields mf(kv.second, file, "reference.metrics." + r.metric);
    for (const auto& p : policies) {
      if (mf.has(p.name)) {
        r.by_policy[p.name] = mf.number(p.name, std::nullopt, -1e18, 1e18);
      }
    }
    mf.finish();
    out.push_back(r);
  }
  return out;
}

}  // namespace

std::string node_name(const NodeGroup& g, int index) {
  return g.exact_name ? g.name : fmt::format("{}-{:02d}", g.name, index);
}

const policies::LoadedProfile& PolicyConfig::loaded() const {
  if (!profile) {
    throw std::logic_error("policy '" + name + "': its scheduler profile was never loaded");
  }
  return *profile;
}

const char* to_string(RunMode mode) {
  return mode == RunMode::kFill ? "fill" : "time-driven";
}

const char* to_string(FillRandomness r) {
  return r == FillRandomness::kGoMathRand ? "go-math-rand" : "tidesim";
}

PolicyConfig make_policy(std::string name, const std::string& scheduler) {
  return PolicyConfig{std::move(name), scheduler, std::nullopt, policies::load_profile(scheduler)};
}

std::string default_scenario_path() {
  if (fs::exists("scenarios/seed-benchmark.yaml")) {
    return "scenarios/seed-benchmark.yaml";
  }
  return std::string(TIDESIM_SOURCE_DIR) + "/scenarios/seed-benchmark.yaml";
}

std::string scenario_hash(std::string_view text) {
  return fmt::format("fnv1a64:{:016x}", stable_hash(text));
}

Scenario load_scenario(const std::string& path) {
  return load_scenario(path, nullptr);
}

Scenario load_scenario(const std::string& path, const std::function<void(ConfigNode&)>& edit,
                       policies::RegistryPtr registry, JobPolicyRegistryPtr job_policies) {
  // A yaml-cpp exception escaping the reader (a bad conversion, say) still names the file.
  return yaml_guard(path, [&] {
    const std::string text = read_text_file(path, "scenario file");
    ConfigNode root = load_yaml_string(text, path);
    if (edit) {
      edit(root);
    }
    Fields f = Fields::document(root, path);
    Scenario s;
    s.path = path;
    s.folder = fs::path(path).parent_path().string();
    if (s.folder.empty()) {
      s.folder = ".";
    }
    s.hash = scenario_hash(text);
    s.name = f.string("name", fs::path(path).stem().string());
    s.description = f.string("description", "");
    s.cluster = parse_cluster(f.require("cluster"), path, s.folder);
    std::set<std::string> node_names;
    for (const auto& g : s.cluster.groups) {
      for (int i = 1; i <= g.count; ++i) {
        node_names.insert(node_name(g, i));
      }
    }
    s.workload = workloads::parse_workload(f.require("workload"), path, s.folder);
    s.registry = registry ? std::move(registry) : policies::default_registry();
    s.job_policies = job_policies ? std::move(job_policies) : default_job_policy_registry();
    s.policies = parse_policies(f.require("policies"), path, s.folder, s.registry, s.job_policies,
                                s.cluster.snapshot ? s.cluster.snapshot->objects.get() : nullptr);
    for (const PolicyConfig& p : s.policies) {
      if (p.admission && p.admission->quotas) {
        check_job_queues(s.workload, *p.admission->quotas, p.name);
      }
    }
    s.seeds = parse_seeds(f.get("seeds"), path);
    s.telemetry = parse_telemetry(f.get("telemetry"), path, node_names);
    s.run = parse_run(f.get("run"), path);
    {
      std::vector<std::string> ordered;  // node index order, as the cluster builds them
      for (const auto& g : s.cluster.groups) {
        for (int i = 1; i <= g.count; ++i) {
          ordered.push_back(node_name(g, i));
        }
      }
      s.faults = parse_faults(f.get("faults"), path, ordered);
    }
    s.descheduler = parse_descheduler(f.get("descheduler"), path);
    s.prediction = parse_prediction(f.get("prediction"), path, s.run.sample_interval,
                                    s.telemetry.scrape_interval);
    s.reference = parse_reference(f.get("reference"), path, s.policies, s.reference_source);
    s.report = parse_report(f.get("report"), path);
    f.finish();
    return s;
  });
}

}  // namespace tidesim
