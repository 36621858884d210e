#pragma once
/// PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread/): DoNotSchedule
/// constraints filter (skew), ScheduleAnyway constraints score (weight 2 by default).
#include <memory>

#include "tidesim/policies/registry.hpp"

namespace tidesim::policies {

/// Factory (args: defaultingType System|List, defaultConstraints). System defaulting adds
/// hostname (maxSkew 3) and zone (maxSkew 5) ScheduleAnyway constraints to pods without their own,
/// with a selector built from the Services/ReplicaSets/StatefulSets selecting the pod
/// (helper.DefaultSelector). tidesim models none of those objects, so the selector is empty and,
/// as in Kubernetes for a bare Job pod, the default constraints have no effect.
std::unique_ptr<Plugin> make_pod_topology_spread(const PluginArgs& args);

}  // namespace tidesim::policies
