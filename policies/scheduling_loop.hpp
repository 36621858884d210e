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
///    reservation is undone and it goes to back-off. A pod of the group that fits no node also
///    rejects the waiting siblings at once (Coscheduling's PostFilter), unless at most 10 % of
///    minMember are missing. So no card is held at Permit past the group's timeout.
///  - All-or-nothing mode (Volcano / KAI): the popped pod takes its queued siblings out of the
///    queue and the whole gang is placed in this one cycle (each pod scheduled against the view
///    with the ones before it reserved), or every reservation is undone and all go back as
///    unschedulable. The cycle takes one cycle time per pod tried.
///
/// Preemption (enable_preemption()): a pod that fits no node runs the profile's PostFilter
/// (DefaultPreemption). When it names a node, the loop nominates the pod there (tried first in
/// its next cycles) and asks the target to delete the victims; the pod is not eligible to
/// preempt again while a victim of its nomination is still alive (PodEligibleToPreemptOthers).
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tidesim/policies/queue.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/api/cluster_view.hpp"
#include "tidesim/sim/api/run_signals.hpp"
#include "tidesim/sim/api/telemetry.hpp"
#include "tidesim/sim/engine/simulation.hpp"

namespace tidesim::policies {

/// What the loop needs from the cluster model.
class BindTarget {
 public:
  virtual ~BindTarget() = default;
  /// False when the pod was deleted while it waited (its attempt was killed): the loop drops it.
  virtual bool pod_alive(const PodSpec& pod) const = 0;
  /// Binds `pod` to node `node` (an index into the ClusterView); false when the node's device
  /// plugin cannot place it after all (the pod is then unschedulable for this cycle).
  virtual bool bind(const PodSpec& pod, int node) = 0;
  /// Reserve: places `pod` on `node` (the device plugin holds its cards, the ClusterView counts
  /// it) without binding it; false when the device plugin cannot. Gangs only.
  virtual bool reserve(const PodSpec& pod, int node);
  /// The reserved `pod` passed Permit: it is bound now.
  virtual void allow(const PodSpec& pod);
  /// Unreserve: the reserved `pod` was rejected; its cards and its place in the view are freed.
  virtual void unreserve(const PodSpec& pod);
  /// Preemption nominated `node` for `preemptor`: delete `victims` (after their grace period).
  virtual void preempt(const PodSpec& preemptor, int node,
                       const std::vector<std::shared_ptr<const PodSpec>>& victims);
};

/// A gang: scheduler-plugins' PodGroup, and how the loop schedules it.
struct PodGroup {
  enum class Mode { kPermit, kAllOrNothing };
  std::string name;
  Mode mode = Mode::kPermit;
  /// spec.minMember (permit mode; all-or-nothing places every pod of the group).
  int min_member = 1;
  /// spec.scheduleTimeoutSeconds.
  Duration schedule_timeout = std::chrono::seconds(60);
  /// spec.minResources in GPUs (0: not set).
  std::int64_t min_gpus = 0;
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
  void enable_preemption(bool on) { preemption_ = on; }
  /// The node preemption nominated for the pod called `pod` (nominatedNodeName); nullopt if none.
  std::optional<int> nominated_node(const std::string& pod) const;
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
  std::optional<TimePoint> next_cycle() const { return next_cycle_; }
  const Scheduler& scheduler() const { return *scheduler_; }
  const SchedulingQueue& queue() const { return queue_; }
  /// Cycles run so far.
  std::uint64_t cycles() const { return cycles_; }
  /// Of those, the cycles that reused an equivalent pod's failure (fast fail).
  std::uint64_t fast_failed_cycles() const { return fast_failed_; }

  /// Explaining one cycle (`tidesim explain SCENARIO --at T`, docs/policies.md): before each
  /// cycle `want` is asked about its pod; when it answers true, that cycle runs with the scheduler
  /// recording per-node details and filter reasons, without the fast-fail replay, and `got`
  /// receives its result before the pod is bound or requeued. The pods of all-or-nothing gangs
  /// are not asked.
  /// The gang capacity gate (opt-in; docs/job-scheduling.md, "All-or-nothing mode"): before an
  /// all-or-nothing gang's full cycle (not a fast-fail replay of one), the loop checks that the
  /// cluster's free GPUs could hold it (with G GPUs per pod, the sum over nodes of
  /// floor(free / G) at least its pods; pods of different sizes: the free GPUs at least their
  /// sum). When they cannot, no pod is tried: the
  /// cycle is one (one cycle_time, one unschedulable SchedulingEvent for the popped pod) and the
  /// gang waits for the next cluster event. Without the gate such a cycle tries pods until one
  /// fails, and those placed before may move the round-robin start or draw tie-breaks, so the gate
  /// changes later placements.
  void set_gang_capacity_gate(bool on) { gang_gate_ = on; }
  /// All-or-nothing cycles the gate cut short.
  std::uint64_t gated_cycles() const { return gated_; }

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
  enum class QueueingHints { kKubernetes, kPrecise };
  void set_queueing_hints(QueueingHints hints) { hints_ = hints; }
  /// Pods a precise hint kept in place or put back, over the run.
  std::uint64_t hinted_skips() const { return hinted_skips_; }

  using CycleWanted = std::function<bool(const PodSpec&)>;
  using CycleExplained = std::function<void(const PodSpec&, const ScheduleResult&)>;
  void set_inspector(CycleWanted want, CycleExplained got) {
    want_ = std::move(want);
    got_ = std::move(got);
  }

 private:
  struct Gang {
    PodGroup spec;
    std::vector<PodPtr> members;
    // Pods reserved and waiting at Permit, in arrival order.
    std::vector<PodPtr> waiting;
    int bound = 0;
    std::optional<EventId> timer;
    // hint_group() of its pods, computed when `members` had `shape_members` pods (-1: not yet).
    int shape_group = -1;
    std::size_t shape_members = 0;
    // may_help() of its pods in the pop() call numbered `verdict_call` (0: none).
    std::uint64_t verdict_call = 0;
    bool verdict = false;
  };
  struct Nomination {
    PodPtr pod;
    int node = -1;
    std::vector<std::shared_ptr<const PodSpec>> victims;
  };
  // The view `pod` is scheduled against: the cluster's, or, while pods of at least its priority
  // are nominated elsewhere, a copy with those pods added to their nominated nodes
  // (RunFilterPluginsWithNominatedPods), so that the room a preemption made is kept for its
  // preemptor.
  const ClusterView& view_for(const PodSpec& pod);
  void cycle();
  // The next pod to try: the queue's, less the pods precise hints put back (kPrecise).
  std::optional<PodPtr> pop();
  // The gang `pod` belongs to; null for a pod outside any declared group.
  Gang* gang_of(const PodSpec& pod);
  // What Coscheduling sees of `gang` (assigned: bound + waiting alive pods).
  PodGroupStatus group_status(const Gang& gang) const;
  // Reserve + Permit for a pod of a permit-mode gang placed on `node`; false when rejected.
  bool permit(const PodPtr& pod, int node, Gang& gang);
  // Rejects every waiting pod of `gang` (timeout or a sibling that fits nowhere).
  void reject_waiting(Gang& gang);
  // One all-or-nothing cycle for `first` and its queued siblings.
  void gang_cycle(const PodPtr& first, Gang& gang);
  // PostFilter for `pod` after it fit no node.
  void try_preemption(const PodPtr& pod);
  // The outcome of `pod`'s cycle: the scheduler's, or the last equivalent failure's.
  ScheduleResult schedule(const PodSpec& pod);
  // The equivalence class of `pod` (equal equivalence_key(), equal class).
  int equivalence_class(const PodSpec& pod);
  // True when no bound pod has a required anti-affinity term.
  bool no_required_anti_affinity() const;
  // Whether a pod of the class of `failure` (its count and outcome) is still unschedulable now:
  // nothing changed since, or each node changed since still rejects `pod` (then the count moves
  // to now). False when a change is not known by its node or is older than the journal.
  bool still_fails(const PodSpec& pod, std::pair<std::uint64_t, ScheduleResult>& failure);
  // The same, for a failure `r` of `pod` last known current at the count `seen`.
  bool still_fails(const PodSpec& pod, std::uint64_t& seen, const ScheduleResult& r);
  // How many pods equivalent to `pod` the nodes changed since `seen` may take: 0 when
  // still_fails() (then `seen` moves to now), else the sum over the changed nodes that fit the
  // pod of floor(free GPUs / the pod's GPUs), at least 1 each; SchedulingQueue::kAll when the
  // pod asks no whole GPUs or still_fails() could not tell.
  std::size_t room_since(const PodSpec& pod, std::uint64_t& seen, const ScheduleResult& r);
  // The nodes changed since the count `seen`, each once, into changed_; false when a change is
  // not known by its node, is older than the journal, when more changes than nodes passed (then
  // the filters cost no more), or when `r` was not reached with every node evaluated.
  bool changed_since(std::uint64_t seen, const ScheduleResult& r);
  // Whether an all-or-nothing gang whose first pod is `first` still fails as `failure` (the
  // count and the outcomes of the pods its cycle tried) did: an unchanged cluster, or the gang
  // failed at its first pod and that pod still fails (still_fails). Moves the count to now then.
  bool gang_still_fails(const PodSpec& first,
                        std::pair<std::uint64_t, std::vector<ScheduleResult>>& failure);
  // Records a change of the ClusterView on `node` (-1: anywhere).
  void changed(int node);
  // Makes sure a cycle runs at max(at, now, end of the cycle in progress) or earlier.
  void wake(TimePoint at);
  // wake() at the queue's next ready time, if any.
  void wake_when_ready();

  Simulation& sim_;
  std::unique_ptr<Scheduler> scheduler_;
  const ClusterView& cluster_;
  BindTarget& target_;
  Duration cycle_time_;
  const MetricsSource* metrics_;
  Signal<SchedulingEvent>* signals_;
  SchedulingQueue queue_;
  TimePoint busy_until_{};
  std::optional<TimePoint> next_cycle_;
  EventId cycle_event_{};
  std::uint64_t cycles_ = 0;
  // Fast fail (see the class comment).
  bool fast_fail_ = false;
  // The cluster's changes known to the loop (a bind or reservation here, an on_cluster_event()),
  // counted from 1, and the journal of the latest of them: journal_[c - journal_base_] is the
  // node change c touched (-1: any node). Per equivalence class, the count at which a pod of it
  // was last known to be unschedulable, with that outcome (0 is never current).
  std::uint64_t changes_ = 1;
  std::vector<int> journal_;
  std::uint64_t journal_base_ = 1;
  static constexpr std::size_t kJournalLength = 1 << 16;
  std::vector<int> changed_;         // scratch of still_fails()
  std::vector<std::uint64_t> mark_;  // per node, the still_fails() call that listed it
  std::uint64_t stamp_ = 0;
  std::vector<std::pair<std::uint64_t, ScheduleResult>> failures_;
  // Equivalence classes: their keys, by a hash bucket, and the class of each queued pod seen
  // (erased when it is bound or dropped; the queue holds the pod until then).
  std::vector<PodSpec> class_keys_;
  std::unordered_multimap<std::size_t, int> class_by_bucket_;
  std::unordered_map<const PodSpec*, int> class_of_;
  std::uint64_t fast_failed_ = 0;
  CycleWanted want_;
  CycleExplained got_;
  bool gang_gate_ = false;
  std::uint64_t gated_ = 0;
  QueueingHints hints_ = QueueingHints::kKubernetes;
  std::uint64_t hinted_skips_ = 0;
  std::vector<std::uint64_t> helped_;  // per class, the change count at which may_help said yes
  // The precise hint for `pod` (set_queueing_hints): whether the changes since its class last
  // failed may make it schedulable. `classify`: find the class of a pod not yet tried. `gang`:
  // gang_of(pod). Within one pop() call nothing but the queue changes, so an all-or-nothing
  // gang's verdict is computed once per call and reused for its other pods.
  bool may_help(const PodSpec& pod, bool classify, Gang* gang);
  std::uint64_t pop_calls_ = 0;  // pop() calls so far (Gang::verdict_call)
  // Precise hints decide for groups of pods that get one verdict: the hint group `pod` is filed
  // under while unschedulable (SchedulingQueue::add_unschedulable): -1 without precise hints;
  // 0: pods the hint always moves; 2c + 1: the pods of equivalence class c; 2s + 2: the pods
  // of the all-or-nothing gangs of shape shapes_[s] (their pods, GPUs per pod, GPUs).
  int hint_group(const PodSpec& pod);
  // The same, given gang_of(pod).
  int hint_group(const PodSpec& pod, Gang* gang);
  std::vector<std::array<std::int64_t, 3>> shapes_;
  std::map<std::array<std::int64_t, 3>, int> shape_ids_;
  // The precise hint for a hint group whose earliest unschedulable pod is `first`
  // (SchedulingQueue::GroupHint): may_help() answered once for all its pods.
  std::size_t group_hint(int group, const PodSpec& first);
  // may_help() for the pods of an all-or-nothing gang: no member alive, or room for the living.
  bool gang_may_help(const Gang& gang);
  // Whether the free GPUs of the view could hold `pods` (the gate's test).
  bool could_hold(const std::vector<PodPtr>& pods);
  // The same for `count` pods asking `total` GPUs, `per_pod` each (-1: pods of different sizes).
  bool could_hold(std::int64_t count, std::int64_t per_pod, std::int64_t total);
  // How many such gangs the free GPUs could hold at once: with G GPUs per pod, the sum over
  // nodes of floor(free / G), divided by `count`; pods of different sizes: the free GPUs divided
  // by `total`. The largest int64 when no GPUs are asked.
  std::int64_t gangs_held(std::int64_t count, std::int64_t per_pod, std::int64_t total);
  // The ClusterView's nodes counted by free GPUs, kept from the change journal: a node's count
  // is updated when a change names it, every node recounted after a change known nowhere.
  struct FreeGpus {
    std::vector<std::int64_t> by_node;  // free GPUs of each node when last counted
    std::vector<std::int64_t> nodes;    // nodes[f]: nodes with f free GPUs
    std::uint64_t synced = 0;           // the change count it reflects (0: never counted)
  };
  FreeGpus free_;
  // Brings free_ up to the current change count.
  void count_free_gpus();
  // Fast fail of all-or-nothing gangs: by the classes of a gang's pods in the order tried, the
  // state in which such a gang's cycle last failed and the outcomes of the pods it tried.
  std::map<std::vector<int>, std::pair<std::uint64_t, std::vector<ScheduleResult>>> gang_failures_;
  // Gangs by PodGroup name, preemption switch, nominations by pod name.
  std::unordered_map<std::string, Gang> gangs_;
  bool preemption_ = false;
  std::map<std::string, Nomination> nominated_;
  ClusterView with_nominated_;
};

/// What the filters of a profile that reads no metrics see of `pod` when the pod has no pod
/// affinity, anti-affinity or topology-spread terms and no bound pod has a required
/// anti-affinity term: the pod without its name, namespace and labels. Two pods with equal keys
/// get the same filter outcome on the same ClusterView.
PodSpec equivalence_key(const PodSpec& pod);

}  // namespace tidesim::policies
