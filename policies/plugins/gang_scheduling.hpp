#pragma once
/// GangScheduling (kubernetes/kubernetes pkg/scheduler/framework/plugins/gangscheduling, alpha in
/// v1.35 behind the GenericWorkload and GangScheduling gates; KEP-4671): all-or-nothing for the
/// pods of a Workload pod group with policy gang. PreEnqueue keeps a pod out of the queue while
/// fewer than minCount pods of its group exist ("waiting for minCount pods from a gang to appear
/// in scheduling queue"; here at PreFilter, as UnschedulableAndUnresolvable); Permit makes each
/// pod wait, reserved, until minCount pods of the group are assumed or bound ("waiting for
/// minCount pods from a gang to be waiting on permit") and then allows them all; the group's
/// deadline is 5 minutes (the PodGroup's schedule_timeout; workloads/k8s_workload.hpp), after which
/// every waiting pod is rejected and unreserved. The plugin has no PostFilter: a member that fits
/// no node leaves its waiting siblings waiting until the deadline (unlike Coscheduling). Holding
/// and releasing the waiting pods is the scheduling loop's (policies/gangs.hpp). A profile that
/// lists GangScheduling uses it instead of Coscheduling for every PodGroup.
///
/// The arg `podGroupSchedulingCycle: true` (tidesim's switch; false by default) selects the v1.36
/// path instead: each gang is scheduled in one pod group cycle (policies/pod_group_cycle.hpp),
/// where Permit, asked without waiting, only says whether minCount pods are placed; no pod waits
/// and nothing is held past the cycle. docs/topology-aware.md, "Pod group cycle (v1.36)".
#include <memory>

#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/plugin_args.hpp"

namespace tidesim::policies {

struct GangSchedulingArgs {
  /// Schedule each gang in one pod group cycle (KEP-4671 at v1.36) instead of pod by pod (v1.35).
  bool pod_group_scheduling_cycle = false;
};
GangSchedulingArgs parse_gang_scheduling_args(const PluginArgs& args);

/// GangScheduling as a PreFilter + PostFilter (no-op) + Permit plugin.
std::unique_ptr<Plugin> make_gang_scheduling(const GangSchedulingArgs& args);

}  // namespace tidesim::policies
