#pragma once
/// The path of a job's all-reduce ring over the cluster: the directed links of the best ring
/// order on each of its pods' cards (topology routes: NVLink, PCIe switches, host bridges, the
/// socket interconnect), each pod's node NICs when the job has more than one pod, and on a fabric
/// the up-links of the domains it spans; with the bandwidth a burst reaches alone on it and the
/// latency it pays. One rule for the run (Execution) and for the reference placement a run time
/// is measured on (sim/model/reference_speed.hpp). docs/model-workloads.md, "Step time";
/// docs/model-fabric.md.
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/sim/model/cluster.hpp"

namespace tidesim {

/// A pod of a job where it runs: its node and its cards (one entry per device-plugin unit).
struct PodPlace {
  int node = 0;
  std::vector<int> cards;

  bool operator==(const PodPlace&) const = default;
};

struct RingPath {
  /// Resources in crossing order (a resource crossed twice is listed twice).
  std::vector<ResourceId> path;
  /// The same prepared for the fluid (FluidSolver::prepare): the ring's flow is added from it.
  FluidPath prepared;
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

/// The rings of a run's jobs, each kept with the places it was found for, so that a job
/// restarted on the same places (a restart in place) gets its ring without visiting its nodes
/// again, and one restarted with some pods elsewhere (a node replaced by a spare) visits only
/// the nodes of those pods. The ring is ring_path()'s for the same places, resource for resource
/// and bit for bit: ring_path() is this walk without a previous ring.
class RingPaths {
 public:
  /// The ring of job `job` at `pods`; valid until the next call for this job or forget(job).
  const RingPath& ring(int job, Cluster& cluster, const FluidSolver& fluid,
                       const std::vector<PodPlace>& pods);
  /// Drops job `job`'s ring (a finished job).
  void forget(int job) { rings_.erase(job); }

  /// What one pod adds to its job's ring: its node's best ring links over its cards (owned by
  /// the node's TopologyFlows, stable as long as it), its node's uplink and that uplink's
  /// capacity, and its own share of the fabric (infinity off a fabric or in a one-pod ring).
  struct PodPart {
    const std::vector<ResourceId>* links = nullptr;
    ResourceId uplink{};
    double nic = std::numeric_limits<double>::infinity();
    double fabric = std::numeric_limits<double>::infinity();
  };
  struct Kept {
    std::vector<PodPlace> places;
    std::vector<PodPart> parts;
    std::uint64_t capacities = 0;  // FluidSolver::capacity_changes() when found
    RingPath ring;
    std::size_t crossings_from = 0;  // where ring.path's fabric crossings begin
  };

 private:
  std::unordered_map<int, Kept> rings_;
};

/// The distinct cards of `cards`, in increasing order.
std::vector<int> distinct_cards(const std::vector<int>& cards);

}  // namespace tidesim
