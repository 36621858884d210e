#pragma once
/// The scheduling loop of one scheduler profile in a run (pkg/scheduler/schedule_one.go's
/// ScheduleOne driven by the queue): the profile's queue (QueueSort order and back-off from the
/// profile), one pod per cycle, each cycle taking `cycle_time` plus the cycle's own latency
/// (slow metrics queries), and the wake-ups that make a pod freed by a cluster event bind within
/// one cycle time of that event.
///
/// Wake-up rule: the loop keeps at most one pending cycle event, at the earliest time a cycle
/// may do work: the end of the cycle in progress when a pod is ready now, else the queue's next
/// ready time (a back-off end, or the unschedulable timeout). A new pod or a cluster event that
/// makes a pod ready earlier than the pending cycle moves that cycle earlier.
///
/// The loop's parts, each in a class of its own: the failure memo (fast fail, failure_memo.hpp)
/// over the journal of the view's changes (change_journal.hpp), the gangs (gangs.hpp), the
/// preemption nominations (nominations.hpp), the precise queueing hints (precise_hints.hpp) and
/// the clock of its cycles (cycle_clock.hpp). cycle() follows schedule_one.go: pop a pod,
/// schedule it (schedulingCycle), then assume and bind it, or handle the failure (PostFilter).
///
/// Fast fail (Kubernetes' equivalence classes, without changing results): a pod equivalent to one
/// found unschedulable (equivalence_key(): equal but for its name, namespace and labels) gets
/// that pod's outcome without running the filters again, while the cluster is unchanged since (no
/// bind by this loop, no on_cluster_event()), or changed only on nodes known by index (this loop's
/// binds, on_cluster_event(nodes): a deletion) that each still reject the pod (Scheduler::fits on
/// each such node: the other nodes' verdicts cannot have changed, since a filter of such a pod
/// reads only the pod and its node; a PreFilter failure is never reused this way); one outcome is
/// kept per equivalence class. The cycle
/// is still charged (cycle time, the cycle counted and its SchedulingEvent emitted), so a run's
/// results are the same as with every filter run. Only for profiles that read no node metrics
/// (their filters see nothing but the pod and the ClusterView), pods without pod affinity,
/// anti-affinity or topology-spread terms, and while no bound pod has a required anti-affinity term
/// (the one filter that reads an incoming pod's labels and namespace). Not for pods of a
/// permit-mode gang (Coscheduling's PreFilter and Permit read the group's state). An
/// all-or-nothing gang equivalent to one whose cycle failed (its pods' equivalence classes equal,
/// in the order they are tried) in an unchanged cluster gets that cycle's per-pod outcomes, with
/// the same charges: the cycle is a pure function of the classes and the ClusterView, and a failed
/// one leaves the view as it found it. Only failures that also left the scheduler's selection
/// state (round-robin start, tie-breaks drawn) as they found it are remembered. A gang whose
/// cycle failed at its first pod (nothing reserved) keeps failing there as a pod does: while each
/// node changed since, known by its index, still rejects that pod.
///
/// Gangs (docs/job-scheduling.md). A pod labelled kPodGroupLabel with a group declared by
/// add_pod_group() is scheduled as part of it:
///  - Permit mode (Coscheduling): the pod is reserved on its node (the device plugin holds its
///    cards; the Job controller does not see it bound) and runs the Permit plugins; while fewer
///    than minMember pods of the group are assigned it waits there. The pod that completes the
///    group is allowed and allows every waiting sibling (all bind in that cycle). When the group's
///    first waiting pod has waited scheduleTimeoutSeconds, every waiting pod is rejected: its
///    reservation is undone and it goes to back-off. A pod of the group that fits no node runs
///    the group's PostFilter (Coscheduling's, policies/plugins/coscheduling.hpp), which may reject
///    the waiting siblings at once. So no card is held at Permit past the group's timeout.
///  - All-or-nothing mode (Volcano / KAI): the popped pod takes its queued siblings out of the
///    queue and the whole gang is placed in this one cycle (each pod scheduled against the view
///    with the ones before it reserved), or every reservation is undone and all go back as
///    unschedulable. The cycle takes one cycle time per pod tried.
///  - Pod group cycle mode (KEP-4671 at v1.36, a profile whose GangScheduling has
///    podGroupSchedulingCycle): the popped pod takes its queued siblings out of the queue, in
///    order of priority then membership, and the PodGroupCycle part (pod_group_cycle.hpp) places
///    them in one cycle; the placed pods bind at once, the others go back as unschedulable. The
///    cycle takes one cycle time per pod evaluation (pods times placements tried).
///
/// Preemption (enable_preemption()): a pod that fits no node runs the profile's PostFilter
/// (DefaultPreemption; policies/nominations.hpp). When it names a node, the loop nominates the pod
/// there (tried first in its next cycles) and asks the target to delete the victims; the pod is not
/// eligible to preempt again while a victim of its nomination is still alive
/// (PodEligibleToPreemptOthers).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tidesim/policies/bind_target.hpp"
#include "tidesim/policies/change_journal.hpp"
#include "tidesim/policies/cycle_clock.hpp"
#include "tidesim/policies/failure_memo.hpp"
#include "tidesim/policies/gangs.hpp"
#include "tidesim/policies/nominations.hpp"
#include "tidesim/policies/pod_group_cycle.hpp"
#include "tidesim/policies/precise_hints.hpp"
#include "tidesim/policies/queue.hpp"
#include "tidesim/policies/queueing_hints.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/api/cluster_view.hpp"
#include "tidesim/sim/api/run_signals.hpp"
#include "tidesim/sim/api/telemetry.hpp"
#include "tidesim/sim/engine/simulation.hpp"

namespace tidesim::policies {

/// What a scheduling loop counted over a run.
struct LoopCounters {
  /// Cycles run.
  std::uint64_t cycles = 0;
  /// Of those, the cycles that reused an equivalent pod's failure (fast fail).
  std::uint64_t fast_failed = 0;
  /// All-or-nothing cycles the gang capacity gate cut short.
  std::uint64_t gated = 0;
  /// Pods a precise hint kept in place or put back.
  std::uint64_t hinted_skips = 0;
};

class SchedulingLoop {
 public:
  /// The queue takes its options from `scheduler` (scheduler->queue_options()). `cluster`,
  /// `target`, `metrics` (may be null) and `signals` (may be null) must outlive the loop.
  SchedulingLoop(Simulation& sim, std::unique_ptr<Scheduler> scheduler, const ClusterView& cluster,
                 BindTarget& target, Duration cycle_time, const MetricsSource* metrics,
                 Signal<SchedulingEvent>* signals);

  /// A new pod enters the active queue now.
  void add(PodPtr pod);
  /// Declares the PodGroup `group.name` (or starts it afresh: a new attempt of its job); pods
  /// labelled with it and added after this are its members.
  void add_pod_group(const PodGroup& group);
  /// Turns preemption (PostFilter) on.
  void enable_preemption(bool on) { nominations_.set_on(on); }
  /// The node preemption nominated for the pod called `pod` (nominatedNodeName); nullopt if none.
  std::optional<int> nominated_node(const std::string& pod) const {
    return nominations_.node_of(pod);
  }
  /// A cluster event (a pod deleted, resources freed): unschedulable pods move back to the
  /// active or back-off queue, and a cycle runs as soon as the scheduler is free. The ClusterView
  /// changes only through this loop's binds and the changes announced here.
  void on_cluster_event();
  /// The same, for a change known to touch only `nodes` (indices into the ClusterView: pods
  /// deleted there): a pod that fast fail remembers as unschedulable is retried without running
  /// the filters when each of those nodes still rejects it. Empty: the view did not change (a
  /// pod that was never bound was deleted); the unschedulable pods still move, as on any deletion.
  void on_cluster_event(const std::set<int>& nodes);
  /// A metrics event: a scrape changed the metrics some node reports. The pods a plugin that
  /// reads metrics rejected move back (SchedulingQueue::on_metrics_event) and a cycle runs as
  /// soon as the scheduler is free; the ClusterView did not change.
  void on_metrics_event();

  /// Pods waiting in the queue (active, back-off, unschedulable).
  std::size_t pending() const { return queue_.size(); }
  /// When the next cycle is due; nullopt when the loop is idle.
  std::optional<TimePoint> next_cycle() const { return clock_.next(); }
  const Scheduler& scheduler() const { return *scheduler_; }
  const SchedulingQueue& queue() const { return queue_; }
  /// What the loop counted so far.
  LoopCounters counters() const;

  /// The gang capacity gate (opt-in; docs/job-scheduling.md, "All-or-nothing mode"): before an
  /// all-or-nothing gang's full cycle (not a fast-fail replay of one), the loop checks that the
  /// cluster's free GPUs could hold it (with G GPUs per pod, the sum over nodes of
  /// floor(free / G) at least its pods; pods of different sizes: the free GPUs at least their
  /// sum). When they cannot, no pod is tried: the
  /// cycle is one (one cycle_time, one unschedulable SchedulingEvent for the popped pod) and the
  /// gang waits for the next cluster event. Without the gate such a cycle tries pods until one
  /// fails, and those placed before may move the round-robin start or draw tie-breaks, so the gate
  /// changes later placements.
  void set_gang_capacity_gate(bool on) { gangs_.set_gate(on); }

  /// Which unschedulable pods a deletion on known nodes (on_cluster_event(nodes)) moves back
  /// (docs/policies.md, "Queueing hints").
  ///  - kKubernetes (the default): every one, as kube-scheduler's NodeResourcesFit hint does
  ///    (isSchedulableAfterPodEvent returns Queue for any deletion of an assigned pod).
  ///  - kPrecise (opt-in, not Kubernetes'; it changes results): only those the change may help.
  ///    A pod whose class fast fail remembers as unschedulable stays while each node changed
  ///    since still rejects it (the same test as fast fail's replay, so a pod that stays could
  ///    not have been placed by a retry now); a pod of an all-or-nothing gang stays while the
  ///    free GPUs cannot hold its gang (the gate's test). The test is answered once per hint
  ///    group (an equivalence class; the all-or-nothing gangs of one shape) and bounds how many
  ///    of the group's pods move, earliest first: a class's pods asking G whole GPUs, at most
  ///    the sum over the changed nodes that fit it of floor(free GPUs / G) (at least 1 each);
  ///    gangs of a shape, at most as many gangs as the free GPUs could hold. The others stay,
  ///    keeping their place. Every other pod moves, and so does
  ///    every pod on a change not known by its node (on_cluster_event()). The same test runs
  ///    again when a pod comes up in the queue (moved back by a change a pod before it used up,
  ///    after its back-off, at the unschedulable timeout): a pod it rejects goes back to the
  ///    unschedulable set without a cycle and without counting an attempt.
  using QueueingHints = policies::QueueingHints;
  void set_queueing_hints(QueueingHints hints) { hints_.set_on(hints == QueueingHints::kPrecise); }

  /// Explaining one cycle (`tidesim explain SCENARIO --at T`, docs/policies.md): before each
  /// cycle `want` is asked about its pod; when it answers true, that cycle runs with the scheduler
  /// recording per-node details and filter reasons, without the fast-fail replay, and `got`
  /// receives its result before the pod is bound or requeued. The pods of all-or-nothing gangs
  /// are not asked.
  using CycleWanted = std::function<bool(const PodSpec&)>;
  using CycleExplained = std::function<void(const PodSpec&, const ScheduleResult&)>;
  void set_inspector(CycleWanted want, CycleExplained got) {
    inspector_ = {std::move(want), std::move(got)};
  }

 private:
  // What an all-or-nothing cycle did (gang_cycle()).
  struct GangAttempt;
  // One cycle (ScheduleOne): the next pod, its schedulingCycle, then bind or the failure.
  void cycle();
  // schedulingCycle's result for `pod` (of `gang`, null for none): the scheduler's against the
  // view with nominated pods, or fast fail's; explained when the inspector asks for it.
  ScheduleResult schedule(const PodSpec& pod, Gang* gang);
  // A pod that fit no node (handleSchedulingFailure + PostFilter): back as unschedulable, the
  // PodGroup's PostFilter, then preemption.
  void unschedulable(const PodPtr& pod, const ScheduleResult& r, Gang* gang);
  // One all-or-nothing cycle for `first` and its queued siblings.
  void gang_cycle(const PodPtr& first, Gang& gang);
  // One pod group cycle (KEP-4671 at v1.36) for `pods` of `gang`, applied: the placed pods bind.
  void pod_group_cycle(std::vector<PodPtr> pods, Gang& gang);
  // The pods of an all-or-nothing cycle tried in turn, each reserved, until one fails.
  void try_gang(const std::vector<PodPtr>& pods, const std::vector<int>& shape, GangAttempt& a);
  // Wakes the clock at the queue's next ready time, if any.
  void wake_when_ready();
  void emit(const SchedulingEvent& event);

  Simulation& sim_;
  std::unique_ptr<Scheduler> scheduler_;
  const ClusterView& cluster_;
  BindTarget& target_;
  Duration cycle_time_;
  const MetricsSource* metrics_;
  Signal<SchedulingEvent>* signals_;
  SchedulingQueue queue_;
  CycleClock clock_;
  ChangeJournal journal_;
  FailureMemo memo_;
  Gangs gangs_;
  Nominations nominations_;
  PreciseHints hints_;
  struct {
    CycleWanted want;
    CycleExplained got;
  } inspector_;
  std::uint64_t cycles_ = 0;
};

}  // namespace tidesim::policies
