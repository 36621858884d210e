#pragma once
/// The back-off queue of the scheduling queue (scheduling_queue.go's backoffQ): pods that wait
/// out their back-off, in the order it ends, with Kubernetes' rule:
/// backoff = initial * 2^(attempts - 1), capped at max, counted from the last failure.
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>

#include "tidesim/policies/queued_pod.hpp"

namespace tidesim::policies {

class BackoffQueue {
 public:
  /// (back-off end, seq).
  using Key = std::pair<TimePoint, std::uint64_t>;

  /// podInitialBackoffSeconds and podMaxBackoffSeconds.
  BackoffQueue(Duration initial, Duration max) : initial_(initial), max_(max) {}

  /// The back-off of a pod after `attempts` attempts (calculateBackoffDuration).
  Duration duration(int attempts) const;
  /// When the back-off of `e` ends (getBackoffTime).
  TimePoint end_of(const QueuedPod& e) const { return e.timestamp + duration(e.attempts); }

  /// Adds `e`; returns its key.
  Key push(QueuedPod e);
  /// Takes the first pod out (the queue must not be empty).
  QueuedPod pop_first();
  /// Takes the pod with key `k` out (it must be there).
  QueuedPod take(const Key& k);
  bool empty() const { return pods_.empty(); }
  std::size_t size() const { return pods_.size(); }
  /// The earliest back-off end (the queue must not be empty).
  TimePoint first_end() const { return pods_.begin()->first.first; }

 private:
  Duration initial_;
  Duration max_;
  std::map<Key, QueuedPod> pods_;
};

}  // namespace tidesim::policies
