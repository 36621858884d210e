#include "tidesim/sim/model/ring_path.hpp"

#include <algorithm>
#include <map>

namespace tidesim {

std::vector<int> distinct_cards(const std::vector<int>& cards) {
  std::vector<int> out;
  for (const auto& [card, count] : card_counts(cards)) {
    out.push_back(card);
  }
  return out;
}

namespace {

// A ring that leaves its nodes on a fabric: each pod reaches the fabric through its GPUs' NICs
// only, the ring crosses the up-links of the domains it spans, and each burst pays the fabric's
// latency.
void add_fabric_path(const Cluster& cluster, const FabricNetwork& fabric,
                     const std::vector<PodPlace>& pods, RingPath& ring) {
  std::vector<int> nodes;
  for (const PodPlace& pod : pods) {
    const int node_gpus = cluster.node(pod.node).topology->gpu_count();
    const auto pod_gpus = static_cast<int>(distinct_cards(pod.cards).size());
    ring.alone = std::min(ring.alone, pod_fabric_bandwidth(fabric.fabric(), pod_gpus, node_gpus));
    nodes.push_back(pod.node);
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  fabric.add_crossings(nodes, ring.path);
  ring.latency = fabric.latency(nodes);
}

}  // namespace

RingPath ring_path(Cluster& cluster, const FluidSolver& fluid, const std::vector<PodPlace>& pods) {
  RingPath ring;
  const bool multi_node = pods.size() > 1;
  for (const PodPlace& pod : pods) {
    const ClusterNode& node = cluster.node(pod.node);
    for (const ResourceId r : node.links->best_ring_resources(distinct_cards(pod.cards))) {
      ring.path.push_back(r);
    }
    if (multi_node) {
      ring.path.push_back(node.uplink);
      ring.nic = std::min(ring.nic, fluid.capacity(node.uplink));
    }
  }
  if (const FabricNetwork* fabric = cluster.fabric(); fabric && multi_node) {
    add_fabric_path(cluster, *fabric, pods, ring);
  }
  std::map<ResourceId, int> crossings;
  for (const ResourceId r : ring.path) {
    ++crossings[r];
  }
  for (const auto& [r, times] : crossings) {
    ring.alone = std::min(ring.alone, fluid.capacity(r) / times);
  }
  return ring;
}

}  // namespace tidesim
