#pragma once
/// The active queue of the scheduling queue (scheduling_queue.go's activeQ): the pods to try
/// now, in the profile's QueueSort order.
#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>

#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/queued_pod.hpp"

namespace tidesim::policies {

class ActiveQueue {
 public:
  /// (-priority, timestamp, seq): PrioritySort's Less puts the higher priority first, then the
  /// earlier timestamp; seq breaks ties (FIFO). Under kFifo the priority part is 0.
  using Key = std::tuple<std::int64_t, TimePoint, std::uint64_t>;

  explicit ActiveQueue(QueueOrder order) : order_(order) {}

  /// The place of `e` in this queue.
  Key key(const QueuedPod& e) const;
  /// Adds `e`; returns its key.
  Key push(QueuedPod e);
  /// Takes the first pod out (the queue must not be empty).
  QueuedPod pop_first();
  /// Takes the pod with key `k` out (it must be there).
  QueuedPod take(const Key& k);
  bool empty() const { return pods_.empty(); }
  std::size_t size() const { return pods_.size(); }
  /// The key of the first pod (the queue must not be empty).
  const Key& first_key() const { return pods_.begin()->first; }

  /// Records the priority of a pod the scheduling queue makes an entry for.
  void note_priority(std::int32_t priority);
  /// Whether a pod's place may depend on its priority: the queue sorts by priority and the
  /// pods noted so far have more than one.
  bool orders_by_priority() const { return order_ == QueueOrder::kPrioritySort && mixed_; }

 private:
  QueueOrder order_;
  // Whether the pods noted so far have more than one priority (the first one's: `priority_`).
  bool have_priority_ = false;
  bool mixed_ = false;
  std::int32_t priority_ = 0;
  std::map<Key, QueuedPod> pods_;
};

}  // namespace tidesim::policies
