#include "tidesim/sim/model/ring_path.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "tidesim/sim/model/node_order.hpp"

namespace tidesim {

std::vector<int> distinct_cards(const std::vector<int>& cards) {
  std::vector<int> out;
  for_each_card_count(cards, [&out](int card, int) { out.push_back(card); });
  return out;
}

namespace {

// What pod `pod` adds to a ring (RingPaths::PodPart): its node's best ring links over its cards
// and, in a ring of several pods, its node's NICs (the uplink) and on a fabric its GPUs' share of
// them.
RingPaths::PodPart pod_part(Cluster& cluster, const FluidSolver& fluid, const PodPlace& pod,
                            bool multi_node) {
  const ClusterNode& node = cluster.node(pod.node);
  // A whole-card pod's cards are distinct and in order already.
  const bool distinct = std::adjacent_find(pod.cards.begin(), pod.cards.end(),
                                           std::greater_equal<int>()) == pod.cards.end();
  const std::vector<int> copy = distinct ? std::vector<int>{} : distinct_cards(pod.cards);
  RingPaths::PodPart part;
  part.links = &node.links->best_ring_resources(distinct ? pod.cards : copy);
  if (multi_node) {
    part.uplink = node.uplink;
    part.nic = fluid.capacity(node.uplink);
    // A ring that leaves its nodes on a fabric: each pod reaches the fabric through its GPUs'
    // NICs only.
    if (const FabricNetwork* fabric = cluster.fabric()) {
      int pod_gpus = 0;
      for_each_card_count(pod.cards, [&pod_gpus](int, int) { ++pod_gpus; });
      part.fabric = pod_fabric_bandwidth(fabric->fabric(), pod_gpus, node.topology->gpu_count());
    }
  }
  return part;
}

// The ring of pods at `pods` from each pod's part: the pods' links (and uplinks) in pod order;
// on a fabric the up-links of the domains it spans and the fabric's latency per burst; the
// burst bandwidth alone.
// `previous` (may be null): the ring kept for these pods before the pods `moved` (indices) moved;
// its prepared path is changed by their parts and the fabric's crossings instead of prepared
// again, to the same uses (weights count crossings, exact in a double). Returns where the path's
// fabric crossings begin.
std::size_t assemble(const Cluster& cluster, const FluidSolver& fluid,
                     const std::vector<PodPlace>& pods,
                     const std::vector<RingPaths::PodPart>& parts, RingPath& ring,
                     const RingPaths::Kept* previous = nullptr,
                     const std::vector<std::size_t>& moved = {}) {
  ring.path.clear();
  ring.alone = std::numeric_limits<double>::infinity();
  ring.latency = 0.0;
  ring.nic = std::numeric_limits<double>::infinity();
  const bool multi_node = pods.size() > 1;
  for (const RingPaths::PodPart& part : parts) {
    ring.path.insert(ring.path.end(), part.links->begin(), part.links->end());
    if (multi_node) {
      ring.path.push_back(part.uplink);
      ring.nic = std::min(ring.nic, part.nic);
    }
  }
  const std::size_t crossings_from = ring.path.size();
  if (const FabricNetwork* fabric = cluster.fabric(); fabric && multi_node) {
    std::vector<int> nodes;
    for (std::size_t i = 0; i < pods.size(); ++i) {
      ring.alone = std::min(ring.alone, parts[i].fabric);
      nodes.push_back(pods[i].node);
    }
    sort_distinct_nodes(nodes, static_cast<int>(cluster.nodes().size()));
    fabric->add_crossings(nodes, ring.path);
    ring.latency = fabric->latency(nodes);
  }
  if (previous) {
    std::vector<std::pair<ResourceId, double>> change;
    const auto add = [&change, multi_node](const RingPaths::PodPart& part, double by) {
      for (const ResourceId r : *part.links) {
        change.emplace_back(r, by);
      }
      if (multi_node) {
        change.emplace_back(part.uplink, by);
      }
    };
    for (const std::size_t i : moved) {
      add(previous->parts[i], -1.0);
      add(parts[i], 1.0);
    }
    const std::vector<ResourceId>& old_path = previous->ring.path;
    for (std::size_t k = previous->crossings_from; k < old_path.size(); ++k) {
      change.emplace_back(old_path[k], -1.0);
    }
    for (std::size_t k = crossings_from; k < ring.path.size(); ++k) {
      change.emplace_back(ring.path[k], 1.0);
    }
    ring.prepared = fluid.change(previous->ring.prepared, std::move(change));
  } else {
    ring.prepared = fluid.prepare(ring.path);
  }
  // Each resource's capacity over the times the ring crosses it (the prepared path's weight), the
  // smallest.
  ring.alone = std::min(ring.alone, fluid.level(ring.prepared));
  return crossings_from;
}

}  // namespace

RingPath ring_path(Cluster& cluster, const FluidSolver& fluid, const std::vector<PodPlace>& pods) {
  std::vector<RingPaths::PodPart> parts;
  parts.reserve(pods.size());
  for (const PodPlace& pod : pods) {
    parts.push_back(pod_part(cluster, fluid, pod, pods.size() > 1));
  }
  RingPath ring;
  (void)assemble(cluster, fluid, pods, parts, ring);
  return ring;
}

const RingPath& RingPaths::ring(int job, Cluster& cluster, const FluidSolver& fluid,
                                const std::vector<PodPlace>& pods) {
  Kept& kept = rings_[job];
  // A pod's part holds while its place and the capacities do (the ring's pod count decides
  // whether parts carry uplinks).
  const bool comparable =
      kept.places.size() == pods.size() && kept.capacities == fluid.capacity_changes();
  if (comparable && kept.places == pods) {
    return kept.ring;
  }
  std::vector<PodPart> parts;
  parts.reserve(pods.size());
  std::vector<std::size_t> moved;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const bool same = comparable && kept.places[i] == pods[i];
    parts.push_back(same ? kept.parts[i] : pod_part(cluster, fluid, pods[i], pods.size() > 1));
    if (comparable && !same) {
      moved.push_back(i);
    }
  }
  // A few pods moved (a node replaced): the kept prepared path is changed by their parts.
  Kept before;
  const bool patch = comparable && !kept.places.empty() && moved.size() * 8 <= pods.size();
  if (patch) {
    before = std::move(kept);
  }
  kept.crossings_from =
      assemble(cluster, fluid, pods, parts, kept.ring, patch ? &before : nullptr, moved);
  kept.places = pods;
  kept.parts = std::move(parts);
  kept.capacities = fluid.capacity_changes();
  return kept.ring;
}

}  // namespace tidesim
