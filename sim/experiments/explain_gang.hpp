#pragma once
/// `tidesim explain SCENARIO --pod NAME` for a pod of an all-or-nothing gang (docs/policies.md,
/// "Explaining a run's cycle"): the gang's cycles as the run made them. The scheduling loop places
/// such a gang in one cycle or none (policies/scheduling_loop.hpp), so a cycle is explained as the
/// gang's, not a pod's: which nodes could hold how many of its members, what was missing, where
/// its members were bound and since when it waited; a job its admission policy still holds gets
/// that policy's reason (and its ClusterQueue's quota). Everything is read from the run's signals
/// (its scheduling events, job events, quota events) and from the ClusterView at the instant a
/// gang cycle's events are emitted, by an observer of a replay: the run is the run `run_policy`
/// makes.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/api/cluster_view.hpp"
#include "tidesim/sim/api/run_signals.hpp"
#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {

/// One node as a failed gang cycle found it (the ClusterView with no member reserved).
struct GangNodeRoom {
  std::string node;
  /// Whole GPUs nobody requests on it.
  std::int64_t free_gpus = 0;
  /// How many members its free resources hold (GPUs, CPU, memory, pods; after its nodeSelector
  /// and `unschedulable`): min over the requested resources of floor(free / per member).
  int members = 0;
};

/// One all-or-nothing cycle of the gang.
struct GangCycle {
  TimePoint at{};
  /// The gang's attempt (the pods' last name part).
  int attempt = 0;
  /// The pods the cycle tried, in order (all of them when it placed the gang; up to and with the
  /// one that found no node otherwise; only the popped pod when a replay of an equal gang's
  /// failure or the capacity gate answered).
  std::vector<std::string> tried;
  bool placed = false;
  /// Placed: each tried pod's node, same order.
  std::vector<std::string> nodes;
  /// Failed: the nodes that could hold at least one member, in node order, and their sum.
  std::vector<GangNodeRoom> room;
  int room_total = 0;
  /// Failed: what was missing, in words ("needs 2 pods of 8 GPUs; the free resources hold 1
  /// (node-1: 1): 1 short").
  std::string missing;
};

struct GangExplanation {
  std::string job;
  std::string pod;
  /// The gang's size (the job's pods) and one member's request.
  int members = 0;
  Resources member_request;
  /// When the job was submitted; when its latest attempt started waiting (its submission, or the
  /// restart that made that attempt's pods); nullopt when not yet by the time asked.
  std::optional<TimePoint> submitted;
  std::optional<TimePoint> waiting_since;
  int attempt = 0;
  /// The gang's cycles at or before the time asked, in order.
  std::vector<GangCycle> cycles;
  /// The latest attempt's members as bound (pod, node), when it was bound by the time asked.
  std::vector<std::pair<std::string, std::string>> bound;
  std::optional<TimePoint> bound_at;
  /// Why the job's admission policy holds it (no pod released to the scheduler yet); empty when
  /// it does not.
  std::string admission;
};

/// The job of `pod` (named "<job>-<replica>-<attempt>", as the Job controller names pods) when
/// it is an all-or-nothing gang's; nullopt otherwise.
std::optional<int> all_or_nothing_job(const Workload& workload, const std::string& pod);

/// The gang of `pod` explained up to `at` in the run of `policy` with `seed`; nullopt when `pod`
/// is not an all-or-nothing gang's or its job was not submitted by then.
std::optional<GangExplanation> explain_gang(const Scenario& scenario, const Workload& workload,
                                            const PolicyConfig& policy, std::uint64_t seed,
                                            TimePoint at, const std::string& pod);

/// The member count each node's free resources hold for `request` (GangNodeRoom::members): 0 on
/// an unschedulable node or one whose labels `node_selector` does not match.
int members_fitting(const NodeInfo& node, const Resources& request,
                    const std::map<std::string, std::string>& node_selector);

}  // namespace tidesim
