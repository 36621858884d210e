#pragma once
/// Job lifecycle rules the run driver applies: Kubernetes Job controller back-off and the work
/// lost to the last checkpoint when a worker dies.
#include <cstdint>

#include "sim/engine/time.hpp"

namespace tidesim::workloads {

/// States of a job (issue 4: pending -> bound -> running -> succeeded / OOM-killed / evicted /
/// failed). OOM-killed and evicted jobs go back to pending after back-off until the back-off
/// limit is exhausted, then they are failed.
enum class JobState { kPending, kBound, kRunning, kSucceeded, kOomKilled, kEvicted, kFailed };

/// Name of a state for output ("pending", "bound", "running", "succeeded", "oom-killed",
/// "evicted", "failed").
const char* to_string(JobState state);

/// Kubernetes Job controller back-off before recreating a pod after `failures` failures
/// (failures >= 1): 10 s x 2^(failures - 1), capped at 6 minutes. 0 for failures <= 0.
Duration backoff_delay(int failures);

/// True when a job with `failures` failed pods has exhausted `backoff_limit` (the controller marks
/// it failed once failures exceed the limit).
bool backoff_exhausted(int failures, int backoff_limit);

/// Running time (since the attempt started) of the last checkpoint at or before `ran`:
/// floor(ran / interval) x interval; 0 when interval is zero (no checkpoints).
Duration last_checkpoint(Duration ran, Duration interval);

/// Steps a restarted job resumes from: the steps it had when its last checkpoint was written.
/// `steps_before_attempt` were saved when this attempt began; `step_seconds` is the attempt's
/// step time (the driver passes the mean if it varied). Never more than `steps_done`.
std::int64_t resume_step(std::int64_t steps_before_attempt, std::int64_t steps_done, Duration ran,
                         Duration checkpoint_interval, double step_seconds);

}  // namespace tidesim::workloads
