#pragma once
/// The network beyond the node: each node's NICs (one per rail on a rail-optimised fabric) and
/// tiers of switches whose domains group consecutive nodes (a leaf group or scalable unit, a pod,
/// ...), each with its oversubscription; presets of published fabrics. Formulas and sources:
/// docs/model-fabric.md.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tidesim {

/// The node label prefix a tier's domains are written under by default, as NVIDIA Topograph
/// labels nodes (`network.topology.nvidia.com/leaf`, `/spine`, `/core`).
inline constexpr std::string_view kFabricLabelPrefix = "network.topology.nvidia.com/";

/// One tier of switches. Every `nodes` consecutive nodes of the cluster (in the order of the node
/// groups) are one domain of the tier; the cluster above the last tier is one domain.
struct FabricTier {
  /// "leaf", "spine", ...: names the tier in outputs and its default label.
  std::string name;
  /// The node label whose value names the node's domain of this tier (default
  /// kFabricLabelPrefix + name).
  std::string label;
  /// Nodes per domain; a multiple of the tier below's.
  int nodes = 1;
  /// The bandwidth into the domain's switches from below over the bandwidth from them to the
  /// tier above (1: non-blocking; Meta's pods: 7).
  double oversubscription = 1.0;
  /// Share of the domain's up-link bandwidth collectives achieve, (0, 1] (1: the NIC efficiency
  /// alone limits them).
  double efficiency = 1.0;
  /// Latency added to a collective whose group spans more than one domain of this tier, seconds.
  double latency = 0.0;
};

/// Bus bandwidth a collective reaches over a NIC, as a share of its line rate: nccl-tests'
/// busbw on NDR 400 Gbit/s is 46-48 GB/s of 50 (NVIDIA/nccl-tests #290); 0.93 is an assumption at
/// the low end.
inline constexpr double kDefaultNicEfficiency = 0.93;

/// The fabric of a cluster.
struct Fabric {
  /// The preset it was built from ("" when written out).
  std::string preset;
  /// NICs per node (rails on a rail-optimised fabric: GPU i's NIC is on rail i).
  int nics_per_node = 8;
  /// Line rate of one NIC, bytes/s.
  double nic_bandwidth = 400e9 / 8.0;
  /// Bus bandwidth a collective reaches over a NIC, as a share of its line rate.
  double efficiency = kDefaultNicEfficiency;
  /// Latency of a collective that leaves the node, seconds (Calculon's cluster network: 20 us).
  double latency = 20e-6;
  /// GPU i's NIC on rail i's leaf: a node may not have more GPUs than NICs.
  bool rail_optimized = true;
  /// From the tier nearest the nodes up.
  std::vector<FabricTier> tiers;
};

/// A node's bandwidth into the fabric, bytes/s: nics_per_node x nic_bandwidth x efficiency.
double node_fabric_bandwidth(const Fabric& fabric);

/// What a pod of `pod_gpus` GPUs on a node of `node_gpus` GPUs reaches over the fabric, bytes/s:
/// its GPUs' share of the node's NICs, node_fabric_bandwidth x min(1, pod_gpus / node_gpus) (the
/// whole node's when node_gpus is 0).
double pod_fabric_bandwidth(const Fabric& fabric, int pod_gpus, int node_gpus);

/// The capacity of the up-link of a domain of tier `tier` with `members` nodes, bytes/s:
/// members x node_fabric_bandwidth / (oversubscription of tiers 0..tier) x the tier's efficiency.
double domain_uplink_bandwidth(const Fabric& fabric, std::size_t tier, int members);

/// The domain of tier `tier` that the `node`-th node (0-based, cluster order) is in.
int fabric_domain(const Fabric& fabric, std::size_t tier, int node);

/// The name of domain `domain` of tier `tier`: "<tier name>-<domain, 4 digits>".
std::string fabric_domain_name(const Fabric& fabric, std::size_t tier, int domain);

/// Writes the node labels of the `node`-th node's domains into `labels`: per tier, its label
/// with the domain's name (Topograph's labels, which Kueue's and Volcano's topology levels read).
void add_fabric_labels(const Fabric& fabric, int node, std::map<std::string, std::string>& labels);

/// What is wrong with `fabric`, as (field, message) — the field relative to the fabric section
/// ("tiers[1].nodes") — or nullopt when it adds up: positive finite figures, tier names unique,
/// each tier's nodes a multiple of the tier below's and larger.
std::optional<std::pair<std::string, std::string>> fabric_error(const Fabric& fabric);

/// The preset names, in the order of docs/model-fabric.md.
std::span<const std::string_view> fabric_preset_names();

/// The preset `name`, nullopt for an unknown name.
std::optional<Fabric> fabric_preset(std::string_view name);

/// The one-line description of preset `name` with its source ("" for an unknown name).
std::string_view fabric_preset_description(std::string_view name);

}  // namespace tidesim
