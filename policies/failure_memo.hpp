#pragma once
/// Fast fail, Kubernetes' equivalence classes without changing results: a scheduling loop's memory
/// of failed cycles (the rules: policies/scheduling_loop.hpp, "Fast fail"). Pods are grouped into
/// equivalence classes (equivalence_key()); per class, and per all-or-nothing gang shape (its
/// pods' classes in order), the last failure is kept with the change count at which it was last
/// known to hold (ChangeJournal). The precise queueing hints ask the same memory whether a change
/// may help a class.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tidesim/policies/change_journal.hpp"
#include "tidesim/policies/scheduler.hpp"

namespace tidesim::policies {

/// What the filters of a profile that reads no metrics see of `pod` when the pod has no pod
/// affinity, anti-affinity or topology-spread terms and no bound pod has a required
/// anti-affinity term: the pod without its name, namespace and labels. Two pods with equal keys
/// get the same filter outcome on the same ClusterView.
PodSpec equivalence_key(const PodSpec& pod);

/// Pods grouped by equal equivalence_key(): each class is numbered from 0 when first seen.
class EquivalenceClasses {
 public:
  /// The class of `pod`, found once and kept while the pod is queued.
  int of(const PodSpec& pod);
  /// The class kept for `pod`; -1 when it was not asked yet.
  int kept(const PodSpec& pod) const;
  /// Forgets `pod` (bound or dropped; the queue held it until then).
  void forget(const PodSpec& pod) { of_.erase(&pod); }

 private:
  std::vector<PodSpec> keys_;
  std::unordered_multimap<std::size_t, int> by_bucket_;
  std::unordered_map<const PodSpec*, int> of_;
};

class FailureMemo {
 public:
  /// On when the profile of `scheduler` reads no node metrics (its filters see nothing but the
  /// pod and the view). `scheduler`, `cluster` and `journal` must outlive the memo.
  FailureMemo(Scheduler& scheduler, const ClusterView& cluster, const ChangeJournal& journal);

  bool on() const { return on_; }
  /// On, and `pod` has no pod affinity, anti-affinity or topology-spread terms.
  bool eligible(const PodSpec& pod) const;
  /// No bound pod has a required anti-affinity term (the one filter that reads an incoming pod's
  /// labels and namespace): only then is a failure remembered or trusted.
  bool trusted() const;
  EquivalenceClasses& classes() { return classes_; }

  /// `pod`'s cycle against the loop's view: the last failure of its class while it still holds
  /// (a replay), else the scheduler's outcome, remembered when it is a failure.
  ScheduleResult schedule(const PodSpec& pod, const MetricsSource* metrics, TimePoint now,
                          std::optional<int> nominated);
  /// All-or-nothing gangs: the classes of `pods` in order; empty when a pod is not eligible.
  std::vector<int> gang_shape(const std::vector<PodPtr>& pods);
  /// The outcomes of the pods the remembered failed cycle of a gang of `shape` tried, whose first
  /// pod is `first`, while that failure still holds (each counted as a replay); null otherwise.
  const std::vector<ScheduleResult>* gang_replay(const std::vector<int>& shape,
                                                 const PodSpec& first);
  /// Remembers a failed gang cycle of `shape` (not empty) in the current state.
  void remember_gang(const std::vector<int>& shape, std::vector<ScheduleResult> outcomes);

  /// Precise hints: whether the changes since a pod of `pod`'s class last failed may make it
  /// schedulable (true when not eligible or no failure is remembered). `classify`: find the class
  /// of a pod not asked yet.
  bool may_help(const PodSpec& pod, bool classify);
  /// The class whose hint group `pod` is filed under; -1: none (not eligible or never tried).
  int hint_class(const PodSpec& pod) const;
  /// How many pods of class `cls` (`first` its earliest) the nodes changed since its failure may
  /// take: 0 when each still rejects them, else the sum over those that fit of floor(free GPUs /
  /// the pod's GPUs), at least 1 each; SchedulingQueue::kAll when it cannot tell.
  std::size_t room(int cls, const PodSpec& first);
  /// Cycles answered by a remembered failure.
  std::uint64_t replays() const { return replays_; }

 private:
  using Failure = std::pair<std::uint64_t, ScheduleResult>;
  // Whether `pod`'s failure `r`, last known current at the count `seen`, still holds: nothing
  // changed since, or each node changed since still rejects `pod` (then `seen` moves to now).
  bool still_fails(const PodSpec& pod, std::uint64_t& seen, const ScheduleResult& r);
  // room() for the failure `r` of `pod` last known current at `seen`.
  std::size_t room_since(const PodSpec& pod, std::uint64_t& seen, const ScheduleResult& r);
  // The nodes changed since `seen` into changed_; false when a change is not known by its node,
  // is older than the journal, when more changes than nodes passed (then the filters cost no
  // more), or when `r` was not reached with every node evaluated.
  bool changed_since(std::uint64_t seen, const ScheduleResult& r);
  // Whether a gang whose first pod is `first` still fails as `failure` did: an unchanged
  // cluster, or the gang failed at its first pod and that pod still fails.
  bool gang_still_fails(const PodSpec& first,
                        std::pair<std::uint64_t, std::vector<ScheduleResult>>& failure);

  Scheduler& scheduler_;
  const ClusterView& cluster_;
  const ChangeJournal& journal_;
  bool on_ = false;
  EquivalenceClasses classes_;
  std::vector<int> changed_;  // scratch of changed_since()
  // Per class: the count at which a pod of it was last known unschedulable, with that outcome
  // (count 0: none).
  std::vector<Failure> failures_;
  // Per class: the count at which may_help() or room() last found that changes may help it.
  std::vector<std::uint64_t> helped_;
  std::map<std::vector<int>, std::pair<std::uint64_t, std::vector<ScheduleResult>>> gang_failures_;
  std::uint64_t replays_ = 0;
};

}  // namespace tidesim::policies
