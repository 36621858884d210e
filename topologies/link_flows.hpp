#pragma once
/// A node's links as fluid resources: each directed link of a Topology becomes a FluidSolver
/// resource of the link's one-direction bandwidth, and a ring collective becomes one flow that
/// crosses every directed link of every hop (a link crossed by two hops is consumed twice). The
/// flow's max-min rate is then the ring's bus bandwidth under contention (NCCL: all-reduce of S
/// bytes over n GPUs takes S / rate x 2(n-1)/n).
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/topologies/topology.hpp"

namespace tidesim {

/// Binds one node's topology to a solver. Both must outlive this object. A link's resource is
/// added to the solver when a flow first crosses it, so a cluster of thousands of nodes holds
/// resources only for the links its jobs use.
class TopologyFlows {
 public:
  TopologyFlows(const Topology& topology, FluidSolver& solver);

  /// The resource of directed link `link` (see Topology::route()), added on first use.
  ResourceId resource(int link);
  /// The resources a ring in this order crosses, with repeats.
  std::vector<ResourceId> ring_resources(std::span<const int> order);
  /// The resources of the best ring over `gpus` (Topology::best_ring()); empty for fewer than
  /// two distinct GPUs. Found once per set of GPUs: the reference stays valid as long as this
  /// object.
  const std::vector<ResourceId>& best_ring_resources(std::span<const int> gpus);
  /// Adds a ring flow over `gpus` in their best ring order (Topology::best_ring()); the caller
  /// calls solver.update() and reads the rate. A set of fewer than two GPUs crosses nothing.
  FlowId add_ring(std::span<const int> gpus, double max_rate = FluidSolver::kUnbounded);
  /// Adds a point-to-point flow from GPU a to GPU b.
  FlowId add_transfer(int a, int b, double max_rate = FluidSolver::kUnbounded);

 private:
  const Topology* topology_;
  FluidSolver* solver_;
  std::vector<std::optional<ResourceId>> resources_;
  // best_ring_resources() by set of GPUs (a node's jobs use few distinct sets).
  std::deque<std::pair<std::vector<int>, std::vector<ResourceId>>> best_rings_;
};

}  // namespace tidesim
