#pragma once
/// The pod group scheduling cycle (KEP-4671's "Scheduler Changes for v1.36", with KEP-5732's
/// placements), for the gangs of a profile that asks for it (Plugin::pod_group_cycle(): the
/// GangScheduling arg podGroupSchedulingCycle). Upstream: kubernetes/kubernetes
/// pkg/scheduler/schedule_one_podgroup.go (podGroupCycle, podGroupSchedulingDefaultAlgorithm,
/// podGroupPodSchedulingAlgorithm, applyPodGroupAlgorithmResult) and
/// pkg/scheduler/algorithm_podgroup.go (podGroupSchedulingPlacementAlgorithm, evaluatePlacement,
/// findBestPodGroupPlacement). docs/topology-aware.md, "Pod group cycle (v1.36)".
///
/// One cycle, on the ClusterView as it is (one snapshot; the loop changes nothing meanwhile):
///  - Default algorithm, over a set of nodes: the group's queued pods in order, each scheduled
///    with the profile's filters and scores (Scheduler::schedule_one, with the group's status) and,
///    when it fits, reserved so the next pods see it, then asked Permit without waiting; a pod
///    that fits no node or that Permit rejects is skipped (the others are still tried). The set is
///    feasible when Permit answered Success for some pod (GangScheduling: minCount pods assumed
///    or bound). Every reservation is then undone.
///  - Placements: when the profile has a PlacementPlugin that generates placements for the group,
///    the default algorithm runs once per placement (PodGroupStatus::placement restricts the
///    nodes) and the feasible placement with the highest PlacementScore wins (ties: the first
///    generated); while pods of the group are bound, only placements holding all their nodes.
///    Otherwise it runs once over all nodes.
///  - Outcome: feasible, the chosen run's placed pods are reserved again on the same nodes and
///    cards (the caller binds them; the group's other pods go back as unschedulable); not
///    feasible, nothing is reserved and every pod goes back as unschedulable.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tidesim/policies/bind_target.hpp"
#include "tidesim/policies/queued_pod.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/api/cluster_view.hpp"
#include "tidesim/sim/api/telemetry.hpp"

namespace tidesim::policies {

/// What one pod group cycle gave.
struct PodGroupCycleOutcome {
  /// minCount pods placed: `nodes` of the chosen placement are reserved.
  bool feasible = false;
  /// Per pod, in the order given: its node (-1: not placed), from the chosen placement or, when
  /// none is feasible, from the first one tried.
  std::vector<int> nodes;
  /// Per pod: the fallback stage of its schedule_one (SchedulingEvent).
  std::vector<int> stages;
  /// The chosen placement's name ("" without placements).
  std::string placement;
  /// Placements generated (0 without placements).
  int placements = 0;
  /// Pod evaluations (schedule_one calls) over all placements, and their summed latency.
  int evaluations = 0;
  Duration latency{};
  /// The plugins that rejected the pods not placed (for the queue's hints).
  Rejectors rejectors = 0;
};

class PodGroupCycle {
 public:
  /// Everything given must outlive the part.
  PodGroupCycle(Scheduler& scheduler, const ClusterView& cluster, BindTarget& target,
                const MetricsSource* metrics)
      : scheduler_(scheduler), cluster_(cluster), target_(target), metrics_(metrics) {}

  /// Runs one cycle for `pods` (queued, in upstream's order) of the group `group` (its status
  /// before the cycle), whose bound pods are on `bound_nodes`.
  PodGroupCycleOutcome run(const std::vector<PodPtr>& pods, const PodGroupStatus& group,
                           std::span<const int> bound_nodes, TimePoint now);

 private:
  // One run of the default algorithm over `placement` (null: all nodes), reservations undone.
  struct Evaluation {
    bool feasible = false;
    std::vector<int> nodes;
    std::vector<std::vector<int>> cards;
    std::vector<int> stages;
    Duration latency{};
    Rejectors rejectors = 0;
    int placed = 0;
  };
  Evaluation evaluate(const std::vector<PodPtr>& pods, const PodGroupStatus& group,
                      const std::vector<int>* placement, TimePoint now);
  // The index of the feasible evaluation with the highest PlacementScore; nullopt when none.
  std::optional<std::size_t> best(const std::vector<Placement>& placements,
                                  const std::vector<Evaluation>& runs,
                                  const std::vector<PodPtr>& pods, const PodGroupStatus& group);

  Scheduler& scheduler_;
  const ClusterView& cluster_;
  BindTarget& target_;
  const MetricsSource* metrics_;
};

}  // namespace tidesim::policies
