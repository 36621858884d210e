#pragma once
/// The unschedulable pods of the scheduling queue (scheduling_queue.go's unschedulablePods):
/// pods that failed and wait for an event that may help them, or for their timeout
/// (podMaxInUnschedulablePodsDuration), in the order they entered; each may be filed under a
/// hint group, whose pods a queueing hint answers for together.
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <utility>

#include "tidesim/policies/queued_pod.hpp"

namespace tidesim::policies {

class UnschedulablePods {
 public:
  /// (entered, seq).
  using Key = std::pair<TimePoint, std::uint64_t>;
  using Map = std::map<Key, QueuedPod>;

  /// `timeout`: podMaxInUnschedulablePodsDuration.
  explicit UnschedulablePods(Duration timeout) : timeout_(timeout) {}

  /// Adds `e`, entered at `now` (after every pod already here), under its group when it has
  /// one; returns its key.
  Key push(QueuedPod e, TimePoint now);
  /// Takes the pod at `it` out, and out of its group (the entry returned has none).
  QueuedPod erase(Map::iterator it);

  Map::iterator begin() { return pods_.begin(); }
  Map::iterator end() { return pods_.end(); }
  Map::iterator find(const Key& k) { return pods_.find(k); }
  const QueuedPod& at(const Key& k) const { return pods_.at(k); }
  bool empty() const { return pods_.empty(); }
  std::size_t size() const { return pods_.size(); }
  /// The pods filed under a group.
  std::size_t grouped() const { return grouped_; }
  /// The keys of the pods filed under each group, by group.
  const std::map<int, std::set<Key>>& groups() const { return groups_; }

  /// The first pod (the set must not be empty).
  const QueuedPod& first() const { return pods_.begin()->second; }
  /// When the first pod entered (the set must not be empty).
  TimePoint first_entered() const { return pods_.begin()->first.first; }
  /// When the first pod's timeout ends (the set must not be empty).
  TimePoint first_timeout_end() const { return first_entered() + timeout_; }
  /// The first pod has timed out at `now` (the set must not be empty).
  bool first_timed_out(TimePoint now) const { return now - first_entered() >= timeout_; }

 private:
  Duration timeout_;
  Map pods_;
  std::map<int, std::set<Key>> groups_;
  std::size_t grouped_ = 0;
};

}  // namespace tidesim::policies
