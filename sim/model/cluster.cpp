#include "tidesim/sim/model/cluster.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "tidesim/sim/api/pod_traits.hpp"
#include "tidesim/sim/engine/random.hpp"
#include "tidesim/sim/input/data_folder.hpp"
#include "tidesim/sim/input/did_you_mean.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/model/gpu_labels.hpp"
#include "tidesim/topologies/gpu_models.hpp"
#include "tidesim/topologies/mig.hpp"
#include "tidesim/topologies/presets.hpp"

namespace tidesim {

namespace fs = std::filesystem;

Topology group_topology(const NodeGroup& g, const std::string& folder) {
  // A node without GPUs has no model to take link figures from: the defaults (PCIe Gen4).
  TopologyParams params;
  if (!g.gpu_model.empty()) {
    try {
      params = params_for_gpu(g.gpu_model);
    } catch (const InputError& e) {
      throw InputError(g.where, "gpu", e.message());
    }
  }
  if (is_preset(g.topology)) {
    return load_topology(g.topology, params);
  }
  const std::string file = input_path(folder, g.topology);
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    const std::vector<std::string> presets(preset_names().begin(), preset_names().end());
    const std::string close = closest_name(g.topology, presets);
    throw InputError(g.where, "topology",
                     "'" + g.topology + "' is neither a preset nor a file (looked at " + file +
                         ")" + (close.empty() ? "" : "; did you mean '" + close + "'?") +
                         "; presets: " + fmt::format("{}", fmt::join(presets, ", ")));
  }
  return load_topology(file, params);
}

std::map<int, int> card_counts(const std::vector<int>& cards) {
  std::map<int, int> out;
  for (const int c : cards) {
    ++out[c];
  }
  return out;
}

namespace {

// A group's nodes against its topology and the fabric: the GPU count the trace gave, a GPU model
// for a node with GPUs, and no more GPUs than rails on a rail-optimised fabric.
void check_group(const NodeGroup& g, const Topology& topo,
                 const std::optional<FabricConfig>& fabric) {
  if (g.gpus >= 0 && topo.gpu_count() != g.gpus) {
    throw InputError(g.where, "topology",
                     fmt::format("topology '{}' has {} GPUs but node '{}' has {}", g.topology,
                                 topo.gpu_count(), g.name, g.gpus));
  }
  if (topo.gpu_count() > 0 && g.gpu_model.empty()) {
    throw InputError(g.where, "gpu", "a node with GPUs needs a GPU model");
  }
  if (fabric && fabric->fabric.rail_optimized && topo.gpu_count() > fabric->fabric.nics_per_node) {
    throw InputError(fabric->nics_where.line > 0 ? fabric->nics_where : fabric->where,
                     "cluster.fabric.nics_per_node",
                     fmt::format("node group '{}' has {} GPUs per node, more than the fabric's "
                                 "{} rails (rail_optimized: GPU i's NIC is on rail i)",
                                 g.name, topo.gpu_count(), fabric->fabric.nics_per_node));
  }
}

// The node labels that say what its GPUs are (gpu_labels.hpp); `nvlink_groups`: the topology's
// (Topology::nvlink_groups, a search over its graph: found once per group, not once per node).
void add_gpu_labels(const Topology& topology, const std::vector<std::vector<int>>& nvlink_groups,
                    std::int64_t card_memory, SharingMode sharing,
                    std::map<std::string, std::string>& labels) {
  labels[kGpuCountLabel] = std::to_string(topology.gpu_count());
  labels[kGpuMemoryLabel] = std::to_string(card_memory / (1024 * 1024));
  labels[kGpuSharingLabel] = std::string(to_string(sharing));
  std::string groups;
  for (const auto& group : nvlink_groups) {
    groups += groups.empty() ? "" : "_";
    for (std::size_t i = 0; i < group.size(); ++i) {
      groups += (i ? "." : "") + std::to_string(group[i]);
    }
  }
  if (!groups.empty()) {
    labels[kNvlinkGroupsLabel] = groups;
  }
}

}  // namespace

Cluster::Cluster(const Scenario& scenario, FluidSolver& fluid, std::uint64_t seed) {
  if (scenario.cluster.shared_storage) {
    const auto& s = *scenario.cluster.shared_storage;
    devices_.push_back(StorageResource{StorageDevice{s.name, s.bandwidth, s.latency, true},
                                       fluid.add_resource(s.bandwidth)});
  }
  // Groups with the same topology and GPU model share one Topology (a trace gives one group
  // per node).
  std::map<std::pair<std::string, std::string>, std::shared_ptr<const Topology>> topologies;
  const std::optional<FabricConfig>& fabric = scenario.cluster.fabric;
  for (const auto& g : scenario.cluster.groups) {
    auto& topo = topologies[{g.topology, g.gpu_model}];
    if (!topo) {
      topo = std::make_shared<const Topology>(group_topology(g, scenario.folder));
    }
    check_group(g, *topo, fabric);
    // A node without GPUs keeps a nominal 1-byte card size (it has no card to fill). A card
    // holds what it reports to processes, not its nominal size (visible_memory).
    const std::int64_t memory = g.gpu_memory > 0      ? g.gpu_memory
                                : g.gpu_model.empty() ? 1
                                                      : visible_memory(gpu_model(g.gpu_model));
    const std::vector<std::vector<int>> nvlink_groups = topo->nvlink_groups();
    for (int i = 1; i <= g.count; ++i) {
      ClusterNode n;
      n.name = node_name(g, i);
      n.group = &g;
      n.topology = topo;
      n.has_nvlink = !nvlink_groups.empty();
      n.card_memory = memory;
      GpuSharing sharing{.mode = g.sharing,
                         .replicas = g.replicas,
                         .policy = g.replica_policy,
                         .tie_break = g.tie_break,
                         .tie_seed = 0,
                         .slicing = g.slicing,
                         .interference = g.interference,
                         .declared_memory = g.declared_memory,
                         .isolate_memory = g.isolate_memory};
      for (const std::string& p : g.mig_layout) {
        // Checked by the scenario (mig_layout_error): every name is a profile of the model.
        sharing.mig_layout.push_back(*mig_profile(gpu_model(g.gpu_model), p));
      }
      if (g.tie_break == TieBreak::kDevicePlugin) {
        // Each node's own stream: adding a node never shifts another's draws.
        sharing.tie_seed = RandomStream(seed, "device-plugin/" + n.name).next_u64();
      }
      n.gpus = std::make_unique<GpuNodeState>(n.topology, memory, sharing);
      if (scenario.cluster.shared_storage) {
        n.device = 0;
      } else {
        n.device = static_cast<int>(devices_.size());
        devices_.push_back(StorageResource{
            StorageDevice{g.storage.name, g.storage.bandwidth, g.storage.latency, false},
            fluid.add_resource(g.storage.bandwidth)});
      }
      // The node's NICs: its group's uplink, or the fabric's NICs.
      n.uplink =
          fluid.add_resource(fabric ? node_fabric_bandwidth(fabric->fabric) : g.uplink_bandwidth);
      n.links = std::make_unique<TopologyFlows>(*n.topology, fluid);
      NodeInfo info;
      info.node.name = n.name;
      info.node.labels = g.labels;
      info.node.labels["kubernetes.io/hostname"] = n.name;
      if (fabric) {
        add_fabric_labels(fabric->fabric, static_cast<int>(nodes_.size()), info.node.labels);
      }
      if (topo->gpu_count() > 0) {
        info.node.labels["nvidia.com/gpu.present"] = "true";
        info.node.labels["nvidia.com/gpu.product"] = g.gpu_model;
        add_gpu_labels(*topo, nvlink_groups, memory, g.sharing, info.node.labels);
      }
      info.node.taints = g.taints;
      info.node.unschedulable = g.unschedulable;
      info.node.allocatable.cpu_milli = g.cpu_milli;
      info.node.allocatable.memory_bytes = g.memory_bytes;
      info.node.allocatable.gpus = n.gpus->schedulable_units();
      if (g.sharing == SharingMode::kMig && !g.mig_single) {
        // The device plugin's `mixed` strategy: each profile is its own extended resource,
        // nvidia.com/mig-<profile>, counting the node's instances of it; no nvidia.com/gpu.
        info.node.allocatable.gpus = 0;
        for (const MigSlice& slice : n.gpus->mig_slices()) {
          ++info.node.allocatable
                .extended[std::string(kMigResourcePrefix) + std::string(slice.profile.name)];
        }
      }
      view_.nodes.push_back(std::move(info));
      nodes_.push_back(std::move(n));
      advertise(static_cast<int>(nodes_.size()) - 1);
    }
  }
  if (fabric) {
    fabric_ =
        std::make_unique<FabricNetwork>(fabric->fabric, static_cast<int>(nodes_.size()), fluid);
  }
  if (scenario.cluster.snapshot) {
    bind_snapshot(*scenario.cluster.snapshot);
  }
}

void Cluster::card_view(int n) {
  const ClusterNode& node = nodes_[static_cast<std::size_t>(n)];
  auto& left = view_.nodes[static_cast<std::size_t>(n)].gpu_milli_left;
  left.assign(static_cast<std::size_t>(node.gpus->card_count()), 1000);
  const bool fractional = node.gpus->sharing().mode == SharingMode::kFractional;
  for (int c = 0; c < node.gpus->card_count(); ++c) {
    // Fractional shares are allocations (milli); a card otherwise is taken whole or not at all.
    double used = 0.0;
    for (const std::uint64_t p : fractional ? node.gpus->occupants(c) : std::vector<uint64_t>{}) {
      used += node.gpus->compute_share(p, c);
    }
    const auto used_milli = static_cast<int>(std::llround(used * 1000.0));
    left[static_cast<std::size_t>(c)] =
        fractional ? 1000 - used_milli : (node.gpus->occupants(c).empty() ? 1000 : 0);
  }
  NodeInfo& info = view_.nodes[static_cast<std::size_t>(n)];
  info.gpu_memory_left.clear();
  info.gpu_cores_left.clear();
  info.gpu_card_memory = 0;
  if (node.gpus->sharing().declared_memory) {
    info.gpu_card_memory = node.gpus->memory_capacity();
    for (int c = 0; c < node.gpus->card_count(); ++c) {
      const bool slot = node.gpus->slots_left(c) > 0;
      info.gpu_memory_left.push_back(slot ? node.gpus->declared_left(c) : 0);
      info.gpu_cores_left.push_back(slot ? node.gpus->cores_left(c) : 0);
    }
  }
}

void Cluster::advertise(int n) {
  requested_gpus_.resize(nodes_.size());
  requested_gpus_[static_cast<std::size_t>(n)] =
      view_.nodes[static_cast<std::size_t>(n)].requested.gpus;
  card_view(n);
  const ClusterNode& node = nodes_[static_cast<std::size_t>(n)];
  if (node.gpus->sharing().mode != SharingMode::kFractional || node.gpus->card_count() == 0) {
    return;
  }
  int free_cards = 0;
  std::int64_t most_left = 0;
  for (int c = 0; c < node.gpus->card_count(); ++c) {
    double used = 0.0;
    for (const std::uint64_t p : node.gpus->occupants(c)) {
      used += node.gpus->compute_share(p, c);
    }
    const auto used_milli = static_cast<std::int64_t>(std::llround(used * 1000.0));
    free_cards += used_milli == 0;
    most_left = std::max<std::int64_t>(most_left, 1000 - used_milli);
  }
  NodeInfo& info = view_.nodes[static_cast<std::size_t>(n)];
  info.node.allocatable.gpus = info.requested.gpus + free_cards;
  const auto it = info.requested.extended.find(kGpuMilliResource);
  const std::int64_t requested = it == info.requested.extended.end() ? 0 : it->second;
  info.node.allocatable.extended[kGpuMilliResource] = requested + most_left;
}

std::optional<std::vector<int>> Cluster::bind(int n, std::uint64_t process,
                                              std::shared_ptr<const PodSpec> pod, TimePoint now,
                                              const std::vector<int>& hint) {
  ClusterNode& node = nodes_[static_cast<std::size_t>(n)];
  const auto& req = pod->requests;
  const bool wants_gpu = req.gpus > 0 || req.gpu_milli > 0;
  std::optional<std::vector<int>> cards = std::vector<int>{};
  if (node.gpus->sharing().mode == SharingMode::kMig) {
    // MIG: the device plugin hands out a free instance of the requested profile (`mixed`) or any
    // free instance for one nvidia.com/gpu (`single`); the scheduler counted instances as
    // extended resources, so it names no card.
    const auto profile = mig_request(req);
    if (profile || req.gpus > 0) {
      cards = req.gpus > 1 ? std::nullopt : node.gpus->allocate_mig(process, profile.value_or(""));
      if (!cards) {
        return std::nullopt;
      }
    }
    view_.nodes[static_cast<std::size_t>(n)].add_pod(std::move(pod), now);
    touch(n);
    advertise(n);
    return cards;
  }
  // The scheduler's cards, when they are as many as the pod's units (a share: one card).
  const auto units =
      static_cast<std::size_t>(req.gpu_milli > 0 ? 1 : std::max<std::int64_t>(1, req.gpus));
  if (wants_gpu && node.gpus->sharing().declared_memory) {
    // Declared memory: the scheduler's cards when they still fit, else the device plugin's
    // choice among those that do; one unit per card.
    const GpuClaim claim = gpu_claim(*pod, node.gpus->memory_capacity());
    const int n_units = static_cast<int>(units);
    cards = hint.size() == units ? node.gpus->allocate_declared(process, n_units, hint, claim)
                                 : std::nullopt;
    if (!cards) {
      cards = node.gpus->allocate_declared(process, n_units, {}, claim);
    }
    if (!cards) {
      return std::nullopt;
    }
  } else if (wants_gpu && hint.size() == units) {
    cards = node.gpus->allocate_on(process, hint, static_cast<int>(req.gpu_milli));
  }
  if (wants_gpu && !node.gpus->sharing().declared_memory && (hint.size() != units || !cards)) {
    cards = node.gpus->allocate(process, std::max(1, static_cast<int>(req.gpus)),
                                static_cast<int>(req.gpu_milli));
    if (!cards) {
      return std::nullopt;  // the device plugin cannot satisfy what the scheduler counted
    }
  }
  view_.nodes[static_cast<std::size_t>(n)].add_pod(std::move(pod), now);
  touch(n);
  advertise(n);
  return cards;
}

void Cluster::unbind(int n, std::uint64_t process, const std::string& pod_name) {
  nodes_[static_cast<std::size_t>(n)].gpus->release(process);
  touch(n);
  view_.nodes[static_cast<std::size_t>(n)].remove_pod(pod_name);
  advertise(n);
}

double Cluster::best_ring_bandwidth(int k) {
  const auto it = best_ring_bw_.find(k);
  if (it != best_ring_bw_.end()) {
    return it->second;
  }
  double best = 0.0;
  const Topology* seen = nullptr;
  for (const auto& n : nodes_) {
    if (n.topology.get() == seen) {
      continue;  // nodes of one group share their topology
    }
    seen = n.topology.get();
    const std::vector<bool> all_free(static_cast<std::size_t>(seen->gpu_count()), true);
    if (const auto set = seen->best_free_set(k, all_free)) {
      best = std::max(best, seen->ring_bandwidth(*set));
    }
  }
  best_ring_bw_.emplace(k, best);
  return best;
}

void Cluster::set_cordoned(int n, bool cordoned) {
  const ClusterNode& node = nodes_[static_cast<std::size_t>(n)];
  view_.nodes[static_cast<std::size_t>(n)].node.unschedulable =
      cordoned || node.group->unschedulable;
}

}  // namespace tidesim
