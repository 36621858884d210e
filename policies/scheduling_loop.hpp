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
#include <functional>
#include <memory>
#include <optional>

#include "policies/queue.hpp"
#include "policies/scheduler.hpp"
#include "sim/api/cluster_view.hpp"
#include "sim/api/run_signals.hpp"
#include "sim/api/telemetry.hpp"
#include "sim/engine/simulation.hpp"

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
  /// A cluster event (a pod deleted, resources freed): unschedulable pods move back to the
  /// active or back-off queue, and a cycle runs as soon as the scheduler is free.
  void on_cluster_event();

  /// Pods waiting in the queue (active, back-off, unschedulable).
  std::size_t pending() const { return queue_.size(); }
  /// When the next cycle is due; nullopt when the loop is idle.
  std::optional<TimePoint> next_cycle() const { return next_cycle_; }
  const Scheduler& scheduler() const { return *scheduler_; }
  const SchedulingQueue& queue() const { return queue_; }
  /// Cycles run so far.
  std::uint64_t cycles() const { return cycles_; }

 private:
  void cycle();
  // Makes sure a cycle runs at max(at, now, end of the cycle in progress) or earlier.
  void wake(TimePoint at);

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
};

}  // namespace tidesim::policies
