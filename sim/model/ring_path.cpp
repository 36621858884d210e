#include "tidesim/sim/model/ring_path.hpp"

#include <algorithm>
#include <functional>
#include <vector>

namespace tidesim {

std::vector<int> distinct_cards(const std::vector<int>& cards) {
  std::vector<int> out;
  for_each_card_count(cards, [&out](int card, int) { out.push_back(card); });
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
    int pod_gpus = 0;
    for_each_card_count(pod.cards, [&pod_gpus](int, int) { ++pod_gpus; });
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
    // A whole-card pod's cards are distinct and in order already.
    const bool distinct = std::adjacent_find(pod.cards.begin(), pod.cards.end(),
                                             std::greater_equal<int>()) == pod.cards.end();
    const std::vector<int> copy = distinct ? std::vector<int>{} : distinct_cards(pod.cards);
    const std::vector<ResourceId>& links =
        node.links->best_ring_resources(distinct ? pod.cards : copy);
    ring.path.insert(ring.path.end(), links.begin(), links.end());
    if (multi_node) {
      ring.path.push_back(node.uplink);
      ring.nic = std::min(ring.nic, fluid.capacity(node.uplink));
    }
  }
  if (const FabricNetwork* fabric = cluster.fabric(); fabric && multi_node) {
    add_fabric_path(cluster, *fabric, pods, ring);
  }
  // Each resource's crossings, counted by its dense id (the minimum does not depend on the
  // order the resources are visited in).
  std::vector<int> crossings(static_cast<std::size_t>(fluid.resource_count()), 0);
  for (const ResourceId r : ring.path) {
    ++crossings[static_cast<std::size_t>(r)];
  }
  for (const ResourceId r : ring.path) {
    int& times = crossings[static_cast<std::size_t>(r)];
    if (times > 0) {
      ring.alone = std::min(ring.alone, fluid.capacity(r) / times);
      times = 0;
    }
  }
  return ring;
}

}  // namespace tidesim
