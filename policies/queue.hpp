#pragma once
/// The scheduling queue (pkg/scheduler/internal/queue/scheduling_queue.go): an active queue
/// ordered by the profile's QueueSort, a back-off queue and an unschedulable set.
///
/// Differences from Kubernetes, on purpose: back-off and the unschedulable timeout are honoured
/// at their exact instants (Kubernetes flushes the back-off queue every 1 s and the leftover
/// unschedulable pods every 30 s), so the run driver can jump straight to next_ready_time().
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>

#include "tidesim/policies/active_queue.hpp"
#include "tidesim/policies/backoff_queue.hpp"
#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/in_flight_pods.hpp"
#include "tidesim/policies/queued_pod.hpp"
#include "tidesim/policies/queueing_hint_map.hpp"
#include "tidesim/policies/unschedulable_pods.hpp"
#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/engine/time.hpp"

namespace tidesim::policies {

/// Queue settings (KubeSchedulerConfiguration defaults).
struct QueueOptions {
  QueueOrder order = QueueOrder::kPrioritySort;
  /// podInitialBackoffSeconds.
  Duration initial_backoff = std::chrono::seconds(1);
  /// podMaxBackoffSeconds.
  Duration max_backoff = std::chrono::seconds(10);
  /// podMaxInUnschedulablePodsDuration: an unschedulable pod is retried after this long anyway.
  Duration unschedulable_timeout = std::chrono::minutes(5);
};

/// Active / back-off / unschedulable queues (ActiveQueue, BackoffQueue, UnschedulablePods) with
/// Kubernetes' back-off rule (BackoffQueue), and the pods in flight (InFlightPods, with the cycle
/// counts that decide where a failed pod goes).
class SchedulingQueue {
 public:
  explicit SchedulingQueue(QueueOptions options = {});

  /// The hints of the profile's plugins, asked which pods an event moves (it must outlive the
  /// queue); until set, a map with no plugins: every pod moves on kClusterChanged alone.
  void set_queueing_hints(const QueueingHintMap* hints) { hints_ = hints; }

  /// A new pod arrives: it goes to the active queue (timestamp `now`).
  void add(PodPtr pod, TimePoint now);
  /// Pops the next pod to schedule at `now` (first moving pods whose back-off ended or whose
  /// unschedulable timeout passed); counts one attempt for it. nullopt when nothing is ready.
  std::optional<PodPtr> pop(TimePoint now);
  /// What a queueing hint says of a pod as it comes up: its hint group when it goes back to the
  /// unschedulable set untried (as put_back()), nullopt when it is to be tried.
  using UpHint = std::function<std::optional<int>(const PodPtr& pod)>;
  /// pop(), then put_back() of the pod while `hint` says so: the first pod `hint` says to try, or
  /// nullopt when every pod ready was put back (or none was ready); the same hint calls, in the
  /// same order, and the same queue after them, as that loop. The pods whose unschedulable timeout
  /// passes now and that would come up next are asked in the unschedulable set and put back there
  /// without passing through the active queue.
  std::optional<PodPtr> pop(TimePoint now, const UpHint& hint);
  /// The pod just popped could not be scheduled: it waits in the unschedulable set, or in
  /// back-off when an event that may help it (QueueingHintMap::worth_requeuing, asked with the
  /// nodes unknown) happened since it was popped (a retry may now succeed). `rejectors`: the
  /// plugins that rejected it (ScheduleResult::rejectors), whose hints decide which events move
  /// it. `group` (>= 0; -1: none) files the pod under a hint group while it is unschedulable:
  /// on_cluster_event(now, nodes, GroupHint) decides for the group's pods together.
  void add_unschedulable(PodPtr pod, TimePoint now, Rejectors rejectors = 0, int group = -1);
  /// The pod just popped is not tried after all (a queueing hint says nothing since its last
  /// failure can help it): it goes back to the unschedulable set, its attempt not counted.
  void put_back(PodPtr pod, TimePoint now, int group = -1);
  /// The pod's cycle failed with an error (not a fit failure): it goes to back-off.
  void add_backoff(PodPtr pod, TimePoint now);
  /// A cluster event (pod deleted, node added or changed; on `nodes` when known, else null):
  /// every unschedulable pod its rejectors' hints say it may help moves to the active queue, or to
  /// back-off while its back-off has not ended (MoveAllToActiveOrBackoffQueue).
  void on_cluster_event(TimePoint now, const std::set<int>* nodes = nullptr);
  /// A test of one pod (true: the pod counts, or may be helped).
  using PodTest = std::function<bool(const PodSpec&)>;
  /// A queueing hint answered once for a whole hint group (pods that get one verdict: an
  /// equivalence class, a gang), given the group and its earliest unschedulable pod: how many of
  /// the group's pods may be helped (0: none; kAll: every one).
  using GroupHint = std::function<std::size_t(int group, const PodSpec& first)>;
  static constexpr std::size_t kAll = static_cast<std::size_t>(-1);
  /// The same, asking `hint` once per group with unschedulable pods: a group's pods move in the
  /// order they entered the unschedulable set until `n` of them went to the active queue, where
  /// n is the hint's answer (those still in back-off, and those `counted` says take no room, a
  /// deleted pod, move without counting); the rest stay where they are. Pods filed under no
  /// group all move. A pod its rejectors' hints say the event does not help stays, uncounted.
  /// Returns the grouped pods kept.
  std::size_t on_cluster_event(TimePoint now, const std::set<int>* nodes, const GroupHint& hint,
                               const PodTest& counted);
  /// A metrics event (a scrape changed the metrics some node reports): the event only the
  /// plugins that read metrics register for (kMetricsChanged in Plugin::events_to_register(),
  /// kube-scheduler's EventsToRegister). The unschedulable pods such a plugin rejected move as
  /// on_cluster_event() (when its hint says so); the others stay, since nothing they were
  /// rejected for changed.
  void on_metrics_event(TimePoint now);
  /// Forgets the attempt count of a pod that was bound (or deleted).
  void done(const PodSpec& pod);
  /// Takes `pod` (this very object) out of whichever queue holds it, keeping its attempt count,
  /// as pop() would (an all-or-nothing gang's siblings join the cycle of the pod popped); false
  /// when no queue holds it.
  bool take(const PodSpec& pod);

  /// The earliest time at which pop() may return a pod: `now` when the active queue is not empty,
  /// else the earliest back-off end or unschedulable timeout; nullopt when the queue is empty.
  std::optional<TimePoint> next_ready_time(TimePoint now) const;

  /// Pods in all three queues.
  std::size_t size() const;
  std::size_t active_size() const { return active_.size(); }
  std::size_t backoff_size() const { return backoff_.size(); }
  std::size_t unschedulable_size() const { return unschedulable_.size(); }

  /// The back-off of a pod after `attempts` attempts (calculateBackoffDuration).
  Duration backoff_duration(int attempts) const { return backoff_.duration(attempts); }

 private:
  // A queue entry for `pod` added at `now`, with the pod's attempt count so far (`hash`:
  // InFlightPods::hash_of(*pod)).
  QueuedPod make_entry(PodPtr pod, TimePoint now, std::size_t hash);
  // Into one of the three parts, recording where the pod is (the unschedulable set: entered at
  // `now`).
  void push_active(QueuedPod e);
  void push_backoff(QueuedPod e);
  void push_unschedulable(QueuedPod e, TimePoint now);
  // An unschedulable pod moved back: to back-off while its back-off lasts, else to active.
  void requeue(QueuedPod e, TimePoint now);
  // Moves back the unschedulable pods `event` may help (QueueingHintMap::worth_requeuing).
  void move_unschedulable(TimePoint now, const ClusterEventInfo& event);
  // Whether `event` may help the queued pod `e`.
  bool worth_requeuing(const QueuedPod& e, const ClusterEventInfo& event) const;
  // flushBackoffQCompleted, then (flush_unschedulable) flushUnschedulablePodsLeftover: the pods
  // whose unschedulable timeout passed.
  void flush_backoff(TimePoint now);
  void flush_unschedulable(TimePoint now);
  // The first unschedulable pod, timed out, is the pod pop() would return after the flushes: its
  // back-off is over and it comes before every active pod and every other timed-out pod (their
  // keys follow its own when the queue orders by time alone or every pod has one priority).
  bool first_comes_up_next(TimePoint now) const;
  // Takes the first active pod (pop() after the flushes).
  PodPtr pop_active();
  // Where a queued pod's entry is, so take() finds it without a scan.
  enum class Where : std::uint8_t { kActive, kBackoff, kUnschedulable };
  struct Location {
    Where where = Where::kActive;
    ActiveQueue::Key active{};
    BackoffQueue::Key time{};  // or UnschedulablePods::Key: the same type
  };

  std::uint64_t next_seq_ = 0;
  ActiveQueue active_;
  BackoffQueue backoff_;
  UnschedulablePods unschedulable_;
  InFlightPods in_flight_;
  std::unordered_map<const PodSpec*, Location> where_;
  const QueueingHintMap* hints_;
};

}  // namespace tidesim::policies
