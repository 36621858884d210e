#pragma once
/// Gangs in a scheduling loop (docs/job-scheduling.md): the PodGroups declared in a run, their
/// members, the pods waiting at Permit (the framework's waiting-pods map) and their timeout, and
/// what all-or-nothing gangs are asked (the capacity gate, their hint groups). How the loop
/// schedules each mode: policies/scheduling_loop.hpp, "Gangs".
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "tidesim/policies/bind_target.hpp"
#include "tidesim/policies/change_journal.hpp"
#include "tidesim/policies/queue.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/engine/simulation.hpp"

namespace tidesim::policies {

/// A gang: scheduler-plugins' PodGroup, and how the loop schedules it.
struct PodGroup {
  /// kPodGroupCycle: a permit-mode group under a profile that asks for the pod group cycle
  /// (ProfilePlugins::pod_group_cycle(); set by Gangs::declare).
  enum class Mode { kPermit, kAllOrNothing, kPodGroupCycle };
  std::string name;
  Mode mode = Mode::kPermit;
  /// spec.minMember (permit mode; all-or-nothing places every pod of the group).
  int min_member = 1;
  /// spec.scheduleTimeoutSeconds.
  Duration schedule_timeout = std::chrono::seconds(60);
  /// spec.minResources in GPUs (0: not set).
  std::int64_t min_gpus = 0;
  /// KEP-5732: the node label whose one value all pods of the group share ("" for none).
  std::string topology_key;
};

/// A declared PodGroup during a run.
struct Gang {
  PodGroup spec;
  std::vector<PodPtr> members;
  /// Pods reserved and waiting at Permit, in arrival order.
  std::vector<PodPtr> waiting;
  int bound = 0;
  /// Pod group cycle: the nodes of its bound pods (a later cycle keeps to their placement).
  std::vector<int> bound_nodes;
  /// The first waiting pod's timeout (WaitOnPermit).
  std::optional<EventId> timer;
  /// The hint group of its pods, computed when `members` had `shape_members` pods (-1: not yet).
  int shape_group = -1;
  std::size_t shape_members = 0;
  /// may_help() of its pods in the pop() call numbered `verdict_call` (0: none).
  std::uint64_t verdict_call = 0;
  bool verdict = false;
};

class Gangs {
 public:
  /// Everything given must outlive the gangs. `freed`: called when rejected waiting pods have
  /// freed their cards (a cluster event for the loop).
  Gangs(Simulation& sim, Scheduler& scheduler, const ClusterView& cluster, BindTarget& target,
        SchedulingQueue& queue, ChangeJournal& journal, std::function<void()> freed);

  /// Declares the PodGroup `group.name` (or starts it afresh: a new attempt of its job). A
  /// permit-mode group becomes kPodGroupCycle when the profile asks for the pod group cycle.
  void declare(const PodGroup& group);
  /// The gang `pod` belongs to; null for a pod outside any declared group.
  Gang* of(const PodSpec& pod);
  /// What Coscheduling sees of `gang` (assigned: bound + waiting alive pods).
  PodGroupStatus status(const Gang& gang) const;

  /// Reserve + Permit for a pod of a permit-mode gang placed on `node` and `cards`: true when it
  /// waits, reserved, or was allowed (with every waiting sibling); false when it could not be
  /// reserved or was rejected (then unreserved).
  bool permit(const PodPtr& pod, int node, std::span<const int> cards, Gang& gang);
  /// The profile's PostFilter for the PodGroup (Coscheduling's) after `pod` of `gang` fit no
  /// node: rejects the waiting siblings when it says so.
  void post_filter(const PodSpec& pod, Gang& gang);
  /// Rejects every waiting pod of `gang` (timeout or PostFilter): unreserved, to back-off.
  void reject_waiting(Gang& gang);

  /// The gang capacity gate (SchedulingLoop::set_gang_capacity_gate).
  void set_gate(bool on) { gate_ = on; }
  /// With the gate on: true, and the cycle counted as gated, when the free GPUs of the view
  /// could not hold `pods` (with G GPUs per pod, the sum over nodes of floor(free / G) at least
  /// their number; pods of different sizes: the free GPUs at least their sum).
  bool gate_closed(const std::vector<PodPtr>& pods);
  /// All-or-nothing cycles the gate cut short.
  std::uint64_t gated() const { return gated_; }

  /// Precise hints for all-or-nothing gangs: the hint group of `gang`'s pods (2s + 2 for its
  /// shape s: pods, GPUs per pod, GPUs).
  int shape_group(Gang& gang);
  /// How many pods of the gangs of hint group `group` may move: as many gangs as the free GPUs
  /// could hold, by their pods.
  std::size_t shape_room(int group);
  /// Whether a change may help `gang`: no member alive, or room for the living; asked once per
  /// pop() call numbered `call` (nothing but the queue changes within one).
  bool may_help(Gang& gang, std::uint64_t call);

 private:
  // Whether the free GPUs could hold `count` pods asking `total` GPUs, `per_pod` each (-1: pods
  // of different sizes).
  bool could_hold(std::int64_t count, std::int64_t per_pod, std::int64_t total);

  Simulation& sim_;
  Scheduler& scheduler_;
  const ClusterView& cluster_;
  BindTarget& target_;
  SchedulingQueue& queue_;
  ChangeJournal& journal_;
  std::function<void()> freed_;
  std::unordered_map<std::string, Gang> gangs_;
  FreeGpuCount free_;
  bool gate_ = false;
  std::uint64_t gated_ = 0;
  std::vector<std::array<std::int64_t, 3>> shapes_;
  std::map<std::array<std::int64_t, 3>, int> shape_ids_;
};

}  // namespace tidesim::policies
