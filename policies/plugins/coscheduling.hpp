#pragma once
/// Coscheduling (kubernetes-sigs/scheduler-plugins pkg/coscheduling: coscheduling.go and
/// core/core.go): gang scheduling with PodGroups. PreFilter rejects a pod whose group has fewer
/// pods than minMember, or (when the group sets minResources) whose group could not fit in the
/// cluster's free GPUs plus those its own assigned pods hold; Permit lets a pod bind once its
/// group has minMember pods assigned (this one included) and otherwise makes it wait, reserved,
/// for the group's scheduleTimeoutSeconds; PostFilter, after a pod of the group fit no node, asks
/// for the waiting siblings to be rejected unless minMember are assigned or at most 10 % of
/// minMember are missing. Releasing the waiting siblings, and rejecting them on timeout or when
/// PostFilter asks, is the scheduling loop's part (the framework's waiting-pods map):
/// policies/gangs.hpp. docs/job-scheduling.md.
#include <memory>

#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/plugin_args.hpp"

namespace tidesim::policies {

/// Coscheduling as a PreFilter + PostFilter + Permit plugin. Takes no args (the timeout is the
/// PodGroup's).
std::unique_ptr<Plugin> make_coscheduling();

}  // namespace tidesim::policies
