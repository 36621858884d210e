#pragma once
/// The precise queueing hints of a scheduling loop (opt-in, not Kubernetes'; the rule:
/// SchedulingLoop::QueueingHints, docs/policies.md "Queueing hints"): which unschedulable pods a
/// change on known nodes may help, answered once per hint group (an equivalence class of the
/// failure memo, or the all-or-nothing gangs of one shape), and asked again when a pod comes up.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>

#include "tidesim/policies/bind_target.hpp"
#include "tidesim/policies/failure_memo.hpp"
#include "tidesim/policies/gangs.hpp"
#include "tidesim/policies/queue.hpp"

namespace tidesim::policies {

class PreciseHints {
 public:
  /// Off until set_on(). Everything given must outlive the hints.
  PreciseHints(FailureMemo& memo, Gangs& gangs, BindTarget& target, SchedulingQueue& queue);

  void set_on(bool on) { on_ = on; }
  bool on() const { return on_; }
  /// The hint group `pod` is filed under while unschedulable (SchedulingQueue::add_unschedulable):
  /// -1 when off; 0: pods always moved; 2c + 1: the pods of equivalence class c; 2s + 2: the
  /// pods of the all-or-nothing gangs of shape s.
  int group(const PodSpec& pod);
  /// The next pod to try at `now`: the queue's, less the pods the hints put back (a pod moved back
  /// by a change that a pod before it has used up, or retried at its timeout with nothing
  /// changed); every pod when off.
  std::optional<PodPtr> pop(TimePoint now);
  /// A change known to touch only `nodes` was recorded: the unschedulable pods it may help
  /// move (all of them the plugins' hints let move when off).
  void on_change(TimePoint now, const std::set<int>& nodes);
  /// Pods the hints kept in place or put back, over the run.
  std::uint64_t skips() const { return skips_; }

 private:
  // group() given the gang of `pod` (null: none).
  int group(const PodSpec& pod, Gang* gang);
  // How many pods of hint group `group`, `first` its earliest, may move
  // (SchedulingQueue::GroupHint).
  std::size_t room(int group, const PodSpec& first);
  // Whether the changes since `pod`'s hint group last failed may make it schedulable.
  // `classify`: find the class of a pod not tried yet.
  bool may_help(const PodSpec& pod, bool classify, Gang* gang);

  FailureMemo& memo_;
  Gangs& gangs_;
  BindTarget& target_;
  SchedulingQueue& queue_;
  bool on_ = false;
  std::uint64_t skips_ = 0;
  std::uint64_t pop_calls_ = 0;  // pop() calls so far (Gang::verdict_call)
};

}  // namespace tidesim::policies
