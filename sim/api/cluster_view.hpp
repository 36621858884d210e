#pragma once
/// The exact allocation state a scheduler sees (what the API server and the scheduler cache hold):
/// node specs, bound pods and their summed requests. Load is NOT here: policies read load only
/// through telemetry (sim/telemetry.hpp).
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/api/api.hpp"
#include "sim/engine/time.hpp"

namespace tidesim {

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
  std::vector<std::shared_ptr<const PodSpec>> pods_with_affinity;
  std::vector<std::shared_ptr<const PodSpec>> pods_with_required_anti_affinity;
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
};

}  // namespace tidesim
