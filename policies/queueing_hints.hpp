#pragma once
/// Which unschedulable pods a deletion on known nodes moves back (`run.queueing_hints`; the rule:
/// SchedulingLoop::set_queueing_hints, docs/policies.md "Queueing hints").

namespace tidesim::policies {

enum class QueueingHints {
  /// Every one, as kube-scheduler's NodeResourcesFit hint does (the default).
  kKubernetes,
  /// Only those the change may help (opt-in, not Kubernetes'; it changes results).
  kPrecise,
};

}  // namespace tidesim::policies
