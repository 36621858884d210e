#pragma once
/// Restart rules of Kubernetes that the Job controller of a run applies
/// (sim/model/job_controller.hpp): the Job controller's back-off before it replaces a failed pod
/// (restartPolicy Never), the kubelet's CrashLoopBackOff before it restarts a failed container in
/// place (restartPolicy OnFailure), and the Job's backoffLimit. Sources: Kubernetes documentation,
/// "Jobs" (Pod backoff failure policy) and "Pod Lifecycle" (Container restarts).
#include "tidesim/sim/engine/time.hpp"

namespace tidesim::workloads {

/// Job controller back-off before recreating a pod after `failures` failures (failures >= 1):
/// 10 s x 2^(failures - 1), capped at 6 minutes. 0 for failures <= 0.
Duration backoff_delay(int failures);

/// Kubelet back-off before restarting a container in place after its `restarts`-th consecutive
/// crash (restarts >= 1): 10 s x 2^(restarts - 1), capped at 5 minutes. 0 for restarts <= 0.
Duration crash_loop_delay(int restarts);

/// A container that ran this long without crashing has its CrashLoopBackOff reset (kubelet:
/// 10 minutes, twice the 5-minute cap).
inline constexpr Duration kCrashLoopResetAfter = std::chrono::minutes(10);

/// True when a job with `failures` failed pods (Never) or container restarts (OnFailure) has
/// exhausted `backoff_limit`: the controller marks it failed once failures exceed the limit.
bool backoff_exhausted(int failures, int backoff_limit);

}  // namespace tidesim::workloads
