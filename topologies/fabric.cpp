#include "tidesim/topologies/fabric.hpp"

#include <array>
#include <cmath>
#include <set>

#include <fmt/core.h>

namespace tidesim {

double node_fabric_bandwidth(const Fabric& fabric) {
  return fabric.nics_per_node * fabric.nic_bandwidth * fabric.efficiency;
}

double pod_fabric_bandwidth(const Fabric& fabric, int pod_gpus, int node_gpus) {
  const double node = node_fabric_bandwidth(fabric);
  if (node_gpus <= 0 || pod_gpus >= node_gpus) {
    return node;
  }
  return node * static_cast<double>(pod_gpus) / static_cast<double>(node_gpus);
}

double domain_uplink_bandwidth(const Fabric& fabric, std::size_t tier, int members) {
  double oversubscription = 1.0;
  for (std::size_t t = 0; t <= tier && t < fabric.tiers.size(); ++t) {
    oversubscription *= fabric.tiers[t].oversubscription;
  }
  const double efficiency = tier < fabric.tiers.size() ? fabric.tiers[tier].efficiency : 1.0;
  return members * node_fabric_bandwidth(fabric) / oversubscription * efficiency;
}

int fabric_domain(const Fabric& fabric, std::size_t tier, int node) {
  return node / fabric.tiers[tier].nodes;
}

std::string fabric_domain_name(const Fabric& fabric, std::size_t tier, int domain) {
  return fmt::format("{}-{:04}", fabric.tiers[tier].name, domain);
}

void add_fabric_labels(const Fabric& fabric, int node, std::map<std::string, std::string>& labels) {
  for (std::size_t t = 0; t < fabric.tiers.size(); ++t) {
    labels[fabric.tiers[t].label] = fabric_domain_name(fabric, t, fabric_domain(fabric, t, node));
  }
}

namespace {

using Problem = std::optional<std::pair<std::string, std::string>>;

bool positive(double x) {
  return std::isfinite(x) && x > 0;
}

Problem tier_error(const FabricTier& t, std::size_t i, int below) {
  const std::string at = fmt::format("tiers[{}]", i);
  if (t.name.empty()) {
    return std::pair{at + ".name", std::string("must not be empty")};
  }
  if (t.nodes < 1) {
    return std::pair{at + ".nodes", std::string("must be at least 1")};
  }
  if (i > 0 && (t.nodes <= below || t.nodes % below != 0)) {
    return std::pair{at + ".nodes",
                     fmt::format("the tiers do not add up: a domain of {} nodes is not made of "
                                 "two or more whole domains of the tier below ({} nodes each)",
                                 t.nodes, below)};
  }
  if (!positive(t.oversubscription) || t.oversubscription < 1.0) {
    return std::pair{at + ".oversubscription", std::string("must be at least 1 (1: non-blocking)")};
  }
  if (!positive(t.efficiency) || t.efficiency > 1.0) {
    return std::pair{at + ".efficiency", std::string("must lie in (0, 1]")};
  }
  if (!std::isfinite(t.latency) || t.latency < 0) {
    return std::pair{at + ".latency", std::string("must not be negative")};
  }
  return std::nullopt;
}

}  // namespace

Problem fabric_error(const Fabric& fabric) {
  if (fabric.nics_per_node < 1) {
    return std::pair{std::string("nics_per_node"), std::string("must be at least 1")};
  }
  if (!positive(fabric.nic_bandwidth) || !positive(node_fabric_bandwidth(fabric))) {
    return std::pair{std::string("nic_bandwidth"), std::string("must be positive and finite")};
  }
  if (!positive(fabric.efficiency) || fabric.efficiency > 1.0) {
    return std::pair{std::string("efficiency"), std::string("must lie in (0, 1]")};
  }
  if (!std::isfinite(fabric.latency) || fabric.latency < 0) {
    return std::pair{std::string("latency"), std::string("must not be negative")};
  }
  std::set<std::string> names;
  std::set<std::string> labels;
  int below = 1;
  for (std::size_t i = 0; i < fabric.tiers.size(); ++i) {
    const FabricTier& t = fabric.tiers[i];
    if (Problem p = tier_error(t, i, below)) {
      return p;
    }
    if (!names.insert(t.name).second) {
      return std::pair{fmt::format("tiers[{}].name", i),
                       fmt::format("two tiers are named '{}'", t.name)};
    }
    if (t.label.empty() || t.label == "kubernetes.io/hostname" || !labels.insert(t.label).second) {
      return std::pair{fmt::format("tiers[{}].label", i),
                       fmt::format("'{}' is not a label of its own: each tier writes its own node "
                                   "label, neither empty, nor kubernetes.io/hostname, nor another "
                                   "tier's",
                                   t.label)};
    }
    below = t.nodes;
  }
  return std::nullopt;
}

namespace {

FabricTier tier(std::string name, int nodes, double oversubscription) {
  FabricTier t;
  t.label = std::string(kFabricLabelPrefix) + name;
  t.name = std::move(name);
  t.nodes = nodes;
  t.oversubscription = oversubscription;
  return t;
}

constexpr std::array<std::string_view, 3> kPresets = {"dgx-superpod-h100", "meta-roce",
                                                      "alibaba-hpn"};

constexpr std::array<std::string_view, 3> kDescriptions = {
    "NVIDIA DGX SuperPOD with DGX H100 (RA-11333-001): 8 x 400 Gbit/s NDR NICs per node, "
    "rail-optimised scalable units of 32 nodes, non-blocking spine and core",
    "Meta's RoCE clusters for Llama 3 (Gangidi et al., SIGCOMM 2024): 400 Gbit/s per GPU, racks "
    "of 2 nodes, pods of 3,072 GPUs non-blocking inside, 7:1 oversubscribed between pods",
    "Alibaba HPN (Qian et al., SIGCOMM 2024): 2 x 200 Gbit/s per GPU (dual plane), rail-optimised "
    "segments of 1,024 GPUs, pods of 15 segments, 15:1 to the core"};

}  // namespace

std::span<const std::string_view> fabric_preset_names() {
  return kPresets;
}

std::string_view fabric_preset_description(std::string_view name) {
  for (std::size_t i = 0; i < kPresets.size(); ++i) {
    if (kPresets[i] == name) {
      return kDescriptions[i];
    }
  }
  return "";
}

std::optional<Fabric> fabric_preset(std::string_view name) {
  Fabric f;
  f.preset = std::string(name);
  // Every preset: 8 NICs at 400 Gbit/s per node (one per GPU), NDR-class busbw efficiency 0.93,
  // 20 us per collective leaving the node (docs/model-fabric.md).
  if (name == "dgx-superpod-h100") {
    f.tiers = {tier("leaf", 32, 1.0), tier("spine", 512, 1.0)};
  } else if (name == "meta-roce") {
    f.rail_optimized = false;
    f.tiers = {tier("leaf", 2, 1.0), tier("spine", 384, 7.0)};
  } else if (name == "alibaba-hpn") {
    f.tiers = {tier("leaf", 128, 1.0), tier("spine", 1920, 15.0)};
  } else {
    return std::nullopt;
  }
  return f;
}

}  // namespace tidesim
