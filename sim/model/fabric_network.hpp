#pragma once
/// The fabric of a run as fluid resources: each node's NICs (ClusterNode::uplink, built by the
/// cluster) and the up-link of every domain of every tier of `cluster.fabric`. A ring over nodes
/// in several domains of a tier crosses each of those domains' up-links once (its nodes in
/// domain order: it enters and leaves each domain once), so rings that cross the same
/// oversubscribed up-link share it max-min, and rings inside their own domains do not meet
/// (docs/model-fabric.md).
///
/// An up-link that carries at least the NICs of all the nodes under it (a non-blocking domain:
/// its tiers' oversubscription 1, its efficiency 1) is left out of the rings' paths: every ring
/// that crosses it also crosses the NIC of one of those nodes, so what the rings through it
/// carry never exceeds what those NICs carry, and it can bind no ring that they do not bind
/// first. The max-min rates are the same without it, and rings that would meet only on such
/// up-links stay separate fluid components (a re-solve does not take every gang of the fabric).
#include <vector>

#include "tidesim/sim/api/run_signals.hpp"
#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/topologies/fabric.hpp"

namespace tidesim {

class FabricNetwork {
 public:
  /// The up-links of a cluster of `nodes` nodes on `fabric`, added to `fluid`.
  FabricNetwork(Fabric fabric, int nodes, FluidSolver& fluid);

  const Fabric& fabric() const { return fabric_; }

  /// Appends to `path` the domain up-links a ring over `nodes` (distinct node indices) crosses,
  /// less those that cannot bind (above).
  void add_crossings(const std::vector<int>& nodes, std::vector<ResourceId>& path) const;
  /// The latency of a collective over `nodes` (distinct node indices): 0 on one node, else the
  /// fabric's plus that of every tier whose domains the nodes span more than one of.
  double latency(const std::vector<int>& nodes) const;
  /// How many domains of each tier `nodes` (distinct node indices) span, tier by tier, and the
  /// fewest that as many nodes need (ceil(nodes / nodes per domain)).
  FabricSpan span(const std::vector<int>& nodes) const;
  /// The up-link of domain `domain` of tier `tier`.
  ResourceId uplink(std::size_t tier, int domain) const {
    return uplinks_[tier][static_cast<std::size_t>(domain)];
  }
  /// Domains of tier `tier` in the cluster.
  int domains(std::size_t tier) const { return static_cast<int>(uplinks_[tier].size()); }

 private:
  // The distinct domains of tier `tier` that `nodes` are in, in increasing order.
  std::vector<int> domains_of(std::size_t tier, const std::vector<int>& nodes) const;

  Fabric fabric_;
  std::vector<std::vector<ResourceId>> uplinks_;  // [tier][domain]
  // Whether the up-link can bind a ring: its capacity below its nodes' NICs together.
  std::vector<std::vector<char>> binding_;  // [tier][domain]
};

}  // namespace tidesim
