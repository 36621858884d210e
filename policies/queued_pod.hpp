#pragma once
/// A pod waiting in the scheduling queue, as one of its three parts holds it
/// (pkg/scheduler/framework/types.go's QueuedPodInfo).
#include <cstddef>
#include <cstdint>
#include <memory>

#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/engine/time.hpp"

namespace tidesim::policies {

/// A pending pod. Pods are identified by namespace/name.
using PodPtr = std::shared_ptr<const PodSpec>;

struct QueuedPod {
  PodPtr pod;
  TimePoint timestamp{};  ///< last time added or failed (QueuedPodInfo.Timestamp)
  std::uint64_t seq = 0;  ///< the order the queue made its entries in: it breaks ties
  int attempts = 0;       ///< attempts so far (QueuedPodInfo.Attempts)
  /// The plugins that rejected it (UnschedulablePlugins: bits of the queue's QueueingHintMap;
  /// SchedulingQueue::add_unschedulable).
  std::uint64_t rejectors = 0;
  /// Hint group while unschedulable (SchedulingQueue::add_unschedulable, put_back); -1: none.
  int group = -1;
  std::size_t key_hash = 0;  ///< InFlightPods::hash_of(*pod), once per entry
};

}  // namespace tidesim::policies
