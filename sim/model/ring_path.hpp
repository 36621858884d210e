#pragma once
/// The path of a job's all-reduce ring over the cluster: the directed links of the best ring
/// order on each of its pods' cards (topology routes: NVLink, PCIe switches, host bridges, the
/// socket interconnect), each pod's node NICs when the job has more than one pod, and on a fabric
/// the up-links of the domains it spans; with the bandwidth a burst reaches alone on it and the
/// latency it pays. One rule for the run (Execution) and for the reference placement a run time
/// is measured on (sim/model/reference_speed.hpp). docs/model-workloads.md, "Step time";
/// docs/model-fabric.md.
#include <limits>
#include <vector>

#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/sim/model/cluster.hpp"

namespace tidesim {

/// A pod of a job where it runs: its node and its cards (one entry per device-plugin unit).
struct PodPlace {
  int node = 0;
  std::vector<int> cards;
};

struct RingPath {
  /// Resources in crossing order (a resource crossed twice is listed twice).
  std::vector<ResourceId> path;
  /// The burst bandwidth alone: the bottleneck resource's capacity over the times the ring
  /// crosses it, and on a fabric each pod's NIC share (infinity for an empty path).
  double alone = std::numeric_limits<double>::infinity();
  /// Each burst's latency over the fabric, seconds (0 within one node or without a fabric).
  double latency = 0.0;
  /// The pods' nodes' NIC capacity, the smallest (infinity for one pod): the NVLink contention
  /// metric's reference reads it.
  double nic = std::numeric_limits<double>::infinity();
};

/// The ring of a job whose pods run at `pods` (at least one, each with its cards). The nodes'
/// link resources are added to the fluid the first time a ring crosses them (TopologyFlows).
RingPath ring_path(Cluster& cluster, const FluidSolver& fluid, const std::vector<PodPlace>& pods);

/// The distinct cards of `cards`, in increasing order.
std::vector<int> distinct_cards(const std::vector<int>& cards);

}  // namespace tidesim
