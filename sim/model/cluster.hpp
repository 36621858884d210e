#pragma once
/// The cluster of a run: nodes built from the scenario's groups (topology, GPU model, per-card
/// state under the node's sharing mode, storage device, uplink), the scheduler's view of them
/// (ClusterView), and the device plugin: which cards a bound pod gets, and what the node
/// advertises to the scheduler (docs/architecture.md, "The cluster model").
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/container/flat_set.hpp>
#include <boost/container/small_vector.hpp>

#include "tidesim/sim/api/cluster_view.hpp"
#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/sim/model/fabric_network.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/topologies/gpu_node.hpp"
#include "tidesim/topologies/link_flows.hpp"
#include "tidesim/topologies/storage.hpp"
#include "tidesim/topologies/topology.hpp"

namespace tidesim {

/// The extended resource that carries fractional GPU shares to the scheduler: a pod asking for
/// gpu_milli requests that many. A node in fractional mode advertises exactly what still fits
/// (Cluster::advertise): its free share is the most any one card has left, and its free whole
/// GPUs are the cards nobody holds a share of, so the scheduler's fit test is the device's.
inline constexpr const char* kGpuMilliResource = "tidesim.io/gpu-milli";

/// A storage device as a fluid resource.
struct StorageResource {
  StorageDevice device;
  ResourceId resource{};
};

/// One node of the run.
struct ClusterNode {
  std::string name;
  const NodeGroup* group = nullptr;
  std::shared_ptr<const Topology> topology;  // shared by the nodes of one group
  bool has_nvlink = false;
  std::unique_ptr<GpuNodeState> gpus;
  std::int64_t card_memory = 0;
  int device = 0;  // index into Cluster::devices()
  ResourceId uplink{};
  std::unique_ptr<TopologyFlows> links;
  /// Jobs with a running pod here (in increasing order; a node runs few, kept inline), and how
  /// many of them need NVLink.
  boost::container::flat_set<int, std::less<int>, boost::container::small_vector<int, 2>> jobs;
  int nvlink_pods = 0;
  /// The running pods here (indices into the run's pods), each job's in its pod order.
  std::vector<int> running_pods;
  /// Counts changes to what observation reads of the node (a pod bound or released, a job
  /// started or stopped here, re-rated, or its memory changed): Observer recomputes the node's
  /// per-card figures only when it moved. Moved only by Cluster::touch, which also lists the node
  /// for Cluster::take_touched.
  std::uint64_t changes = 0;
};

/// The resolved topology of a node group: a preset name, or a file of `nvidia-smi topo -m` output
/// relative to the scenario's folder. Throws InputError at the group's place.
Topology group_topology(const NodeGroup& group, const std::string& folder);

class Cluster {
 public:
  /// Builds every node of `scenario` and its storage, uplink and link resources in `fluid`.
  /// Throws InputError naming the group on an unknown topology or GPU model, or a GPU count that
  /// disagrees with the topology. `seed` (the run's) seeds the device plugin's tie-break stream
  /// of each node whose group asks for it (`sharing.tie_break: device-plugin`).
  Cluster(const Scenario& scenario, FluidSolver& fluid, std::uint64_t seed = 0);
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  std::vector<ClusterNode>& nodes() { return nodes_; }
  const std::vector<ClusterNode>& nodes() const { return nodes_; }
  ClusterNode& node(int n) { return nodes_[static_cast<std::size_t>(n)]; }
  const ClusterNode& node(int n) const { return nodes_[static_cast<std::size_t>(n)]; }
  const std::vector<StorageResource>& devices() const { return devices_; }
  /// What the scheduler sees: node specs, bound pods, requests.
  const ClusterView& view() const { return view_; }
  /// view().nodes[n].requested.gpus, kept beside the other nodes' (the samples read it of every
  /// changed node, where the node's view is otherwise untouched).
  std::int64_t requested_gpus(int n) const { return requested_gpus_[static_cast<std::size_t>(n)]; }

  /// The device plugin at bind: places `pod` (a process id new to the node) on cards of node
  /// `n`; nullopt when the cards cannot hold it. A pod without GPUs takes no card; a GPU-sharing
  /// pod takes one unit with its share. On success the pod is added to the view.
  /// `hint` (may be empty): the cards the scheduler chose (ScheduleResult::cards); they are
  /// taken when they can hold the pod, else the device plugin chooses as without a hint.
  std::optional<std::vector<int>> bind(int n, std::uint64_t process,
                                       std::shared_ptr<const PodSpec> pod, TimePoint now,
                                       const std::vector<int>& hint = {});
  /// Removes a bound pod: its cards and its place in the view.
  void unbind(int n, std::uint64_t process, const std::string& pod_name);

  /// Cordons node `n` (a failure or a drain: the view marks it unschedulable) or lifts the
  /// cordon (back to its group's `unschedulable`).
  void set_cordoned(int n, bool cordoned);

  /// Something observation reads of node `n` changed: its ClusterNode::changes moves and the
  /// node is listed for take_touched().
  void touch(int n) {
    const auto i = static_cast<std::size_t>(n);
    ++nodes_[i].changes;
    if (is_touched_.size() <= i) {
      is_touched_.resize(nodes_.size(), 0);
    }
    if (is_touched_[i] == 0) {
      is_touched_[i] = 1;
      touched_.push_back(n);
    }
  }
  /// Swaps into `out` (cleared first) the nodes touched since the previous call, each once, in
  /// the order first touched; for the run's one Observer, whose samples visit only these.
  void take_touched(std::vector<int>& out) {
    out.clear();
    out.swap(touched_);
    for (const int n : out) {
      is_touched_[static_cast<std::size_t>(n)] = 0;
    }
  }

  /// The fabric between the nodes (`cluster.fabric`), null when the cluster has none (each
  /// node's uplink into one switch).
  const FabricNetwork* fabric() const { return fabric_.get(); }

  /// The best ring bandwidth of `k` GPUs on an idle node of any group (0 when none has k GPUs);
  /// the NVLink contention metric's reference.
  double best_ring_bandwidth(int k);

  /// A running pod of `cluster.snapshot`, bound at construction (cluster_snapshot_pods.cpp).
  struct HeldPod {
    int node = -1;
    std::uint64_t process = 0;  // kSnapshotProcessBase + its index
    const RunningPod* pod = nullptr;
  };
  /// The process ids of the snapshot's pods start here, far above the ids a run gives its
  /// jobs' pods (1, 2, ...).
  static constexpr std::uint64_t kSnapshotProcessBase = std::uint64_t{1} << 62;
  /// The snapshot's running pods, bound to their nodes before any job (empty without one).
  const std::vector<HeldPod>& snapshot_pods() const { return snapshot_pods_; }

 private:
  // Fractional nodes: sets the allocatable whole GPUs and GPU share so that allocatable minus
  // requested is what the device can still place.
  void advertise(int n);
  // Refreshes NodeInfo::gpu_milli_left of node `n` from its cards.
  void card_view(int n);
  // Binds `snapshot`'s running pods to their nodes; an InputError at a pod its node cannot hold.
  void bind_snapshot(const ClusterSnapshotConfig& snapshot);

  std::vector<ClusterNode> nodes_;
  std::vector<StorageResource> devices_;
  std::unique_ptr<FabricNetwork> fabric_;
  ClusterView view_;
  std::vector<std::int64_t> requested_gpus_;  // per node, as its view's (advertise())
  std::map<int, double> best_ring_bw_;        // by GPUs per pod
  std::vector<int> touched_;                  // since the last take_touched()
  std::vector<char> is_touched_;              // per node: listed in touched_
  std::vector<HeldPod> snapshot_pods_;
};

/// The distinct cards of a pod with how many of its workers (device-plugin units) sit on each:
/// under time-slicing two units of one pod can be two replicas of the same card.
std::map<int, int> card_counts(const std::vector<int>& cards);

/// Calls `f(card, workers)` for each pair of card_counts(cards), in the same (increasing card)
/// order, without building the map when the cards are distinct and increasing (a whole-card
/// pod's, as the device plugin lists them).
template <class F>
void for_each_card_count(const std::vector<int>& cards, F&& f) {
  if (std::adjacent_find(cards.begin(), cards.end(), std::greater_equal<int>()) == cards.end()) {
    for (const int c : cards) {
      f(c, 1);
    }
    return;
  }
  for (const auto& [card, workers] : card_counts(cards)) {
    f(card, workers);
  }
}

}  // namespace tidesim
