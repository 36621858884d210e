#pragma once
/// Coscheduling (kubernetes-sigs/scheduler-plugins pkg/coscheduling: coscheduling.go and
/// core/core.go): gang scheduling with PodGroups. PreFilter rejects a pod whose group has fewer
/// pods than minMember, or (when the group sets minResources) whose group could not fit in the
/// cluster's free GPUs plus those its own assigned pods hold; Permit lets a pod bind once its
/// group has minMember pods assigned (this one included) and otherwise makes it wait, reserved,
/// for the group's scheduleTimeoutSeconds. Releasing the waiting siblings and rejecting them all
/// on timeout is the scheduling loop's part (the framework's waiting-pods map):
/// policies/scheduling_loop.hpp. docs/job-scheduling.md.
#include <memory>

#include "tidesim/policies/registry.hpp"

namespace tidesim::policies {

/// Coscheduling as a PreFilter + Permit plugin. Takes no args (the timeout is the PodGroup's).
std::unique_ptr<Plugin> make_coscheduling();

}  // namespace tidesim::policies
