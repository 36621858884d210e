#pragma once
/// The exact allocation state a scheduler sees (what the API server and the scheduler cache hold):
/// node specs, bound pods and their summed requests. Load is NOT here: policies read load only
/// through telemetry (sim/telemetry.hpp).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/engine/time.hpp"

namespace tidesim {

/// A process-wide counter that moves whenever some NodeInfo's lists of pods with affinity terms
/// change, are copied or moved while not empty: ClusterView checks its derived list of such
/// nodes against it (so a list built from a view cannot go stale, however the view was changed).
std::uint64_t affinity_generation();

/// A NodeInfo's list of bound pods with pod affinity terms (read-only outside NodeInfo, which
/// changes it in add_pod and remove_pod). Every change, and every copy or move of a non-empty
/// list (a node entering or leaving a view), moves affinity_generation().
class AffinityPodList {
 public:
  using Pods = std::vector<std::shared_ptr<const PodSpec>>;

  AffinityPodList() = default;
  AffinityPodList(const AffinityPodList& o) : pods_(o.pods_) { touch(!pods_.empty()); }
  AffinityPodList(AffinityPodList&& o) noexcept : pods_(std::move(o.pods_)) {
    touch(!pods_.empty());
  }
  AffinityPodList& operator=(const AffinityPodList& o) {
    touch(!pods_.empty() || !o.pods_.empty());
    pods_ = o.pods_;
    return *this;
  }
  AffinityPodList& operator=(AffinityPodList&& o) noexcept {
    touch(!pods_.empty() || !o.pods_.empty());
    pods_ = std::move(o.pods_);
    return *this;
  }
  ~AffinityPodList() = default;

  bool empty() const { return pods_.empty(); }
  std::size_t size() const { return pods_.size(); }
  const std::shared_ptr<const PodSpec>& operator[](std::size_t i) const { return pods_[i]; }
  Pods::const_iterator begin() const { return pods_.begin(); }
  Pods::const_iterator end() const { return pods_.end(); }
  const Pods& pods() const { return pods_; }

 private:
  friend struct NodeInfo;
  static void touch(bool changed);
  void add(std::shared_ptr<const PodSpec> pod);
  void remove(const PodSpec* pod);

  Pods pods_;
};

/// One node and what is bound to it (framework.NodeInfo).
struct NodeInfo {
  NodeSpec node;
  /// Sum of the requests of the pods bound here.
  Resources requested;
  /// The sum of pod_requests(pod, RequestKind::kNonZero) (framework.NodeInfo.NonZeroRequested;
  /// scoring reads its CPU and memory).
  Resources non_zero_requested;
  /// Pods bound to the node, in binding order.
  std::vector<std::shared_ptr<const PodSpec>> pods;
  /// The bound pods with any pod affinity or anti-affinity term, and those with a required
  /// anti-affinity term (framework.NodeInfo's PodsWithAffinity and PodsWithRequiredAntiAffinity),
  /// in binding order: InterPodAffinity walks these instead of every pod.
  AffinityPodList pods_with_affinity;
  AffinityPodList pods_with_required_anti_affinity;
  /// When each pod in `pods` was bound (same index). Lets a load-aware policy estimate the load of
  /// pods bound after the metrics it reads were sampled.
  std::vector<TimePoint> bound_at;
  /// Milli-GPU left on each card as the device plugin sees it, in card order (fractional
  /// sharing: 1000 minus the shares placed; other modes: 1000 for a card nobody holds, else 0);
  /// empty for a node without cards. The GPU-sharing policies read it.
  std::vector<int> gpu_milli_left;
  /// Declared-memory sharing only (empty otherwise): per card, the declared GPU memory a new
  /// process could still claim, bytes, and the percent of compute (gpucores) it could; both 0 on
  /// a card without a free replica slot. The declared-memory plugin reads them.
  std::vector<std::int64_t> gpu_memory_left;
  std::vector<int> gpu_cores_left;
  /// Declared-memory sharing: the memory of one card, bytes (0 otherwise).
  std::int64_t gpu_card_memory = 0;

  /// Adds a bound pod and its requests, bound at `when`.
  void add_pod(std::shared_ptr<const PodSpec> pod, TimePoint when = TimePoint{});
  /// Removes a bound pod by name; returns false when it is not here.
  bool remove_pod(const std::string& pod_name);
};

/// pod_requests(pod, RequestKind::kNonZero): the request scoring uses.
Resources non_zero_requests(const PodSpec& pod);

/// All nodes, in a fixed order (the order of the scenario).
struct ClusterView {
  std::vector<NodeInfo> nodes;
  /// Index of the node called `name`, or -1.
  int index_of(const std::string& name) const;
  /// The indices of the nodes with a bound pod with any pod affinity or anti-affinity term
  /// (non-empty NodeInfo::pods_with_affinity), in node order: Kubernetes' snapshot keeps this
  /// list (HavePodsWithAffinityNodeInfoList) so InterPodAffinity need not visit every node.
  /// Derived from `nodes`: rebuilt by one walk when affinity_generation(), the address or the
  /// number of the nodes moved since the last call, so it is right however `nodes` was changed
  /// (a view is not for concurrent readers: the list is cached in the view).
  const std::vector<int>& nodes_with_affinity() const;
  /// The same for a pod with a required anti-affinity term (HavePodsWithRequiredAntiAffinity-
  /// NodeInfoList).
  const std::vector<int>& nodes_with_required_anti_affinity() const;

 private:
  struct AffinityIndex {
    bool built = false;
    std::uint64_t generation = 0;
    const NodeInfo* data = nullptr;
    std::size_t size = 0;
    std::vector<int> with_affinity;
    std::vector<int> with_required_anti_affinity;
  };
  const AffinityIndex& affinity_index() const;
  mutable AffinityIndex affinity_index_;
};

}  // namespace tidesim
