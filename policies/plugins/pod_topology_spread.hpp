#pragma once
/// PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread/): DoNotSchedule
/// constraints filter (skew), ScheduleAnyway constraints score (weight 2 by default).
#include <memory>
#include <vector>

#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/plugin_args.hpp"

namespace tidesim::policies {

/// PodTopologySpreadArgs: defaultingType System|List, defaultConstraints. System defaulting adds
/// hostname (maxSkew 3) and zone (maxSkew 5) ScheduleAnyway constraints to pods without their own,
/// with a selector built from the Services/ReplicaSets/StatefulSets selecting the pod
/// (helper.DefaultSelector). tidesim models none of those objects, so the selector is empty and,
/// as in Kubernetes for a bare Job pod, the default constraints have no effect.
struct PodTopologySpreadArgs {
  /// defaultingType System (true) or List.
  bool system_defaulted = true;
  /// The default constraints: System's two, or the List given.
  std::vector<TopologySpreadConstraint> default_constraints = system_default_constraints();

  /// podtopologyspread/plugin.go systemDefaultConstraints.
  static std::vector<TopologySpreadConstraint> system_default_constraints();
};
PodTopologySpreadArgs parse_pod_topology_spread_args(const PluginArgs& args);
std::unique_ptr<Plugin> make_pod_topology_spread(const PodTopologySpreadArgs& args);

}  // namespace tidesim::policies
