#pragma once
/// The state of a run's jobs and pods, shared by the parts of the cluster model: the Job
/// controller creates pods and attempts, the device plugin places them, the execution model runs
/// them. Plain data; each part documents which fields it owns.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/engine/event_queue.hpp"
#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/sim/engine/time.hpp"
#include "tidesim/workloads/catalogue.hpp"
#include "tidesim/workloads/job.hpp"
#include "tidesim/workloads/step_time.hpp"

namespace tidesim {

/// Where a job is in its life.
enum class JobPhase {
  kWaiting,    // not submitted yet
  kPending,    // pods created, not all bound (or bound and starting)
  kRunning,    // every pod runs: work progresses
  kBackoff,    // the attempt failed; the Job controller waits before new pods (restartPolicy Never)
  kCrashLoop,  // the attempt failed; the kubelet waits before restarting the containers in place
               // (restartPolicy OnFailure)
  kSucceeded,
  kFailed,  // backoffLimit exceeded
};

/// One pod of one attempt (restartPolicy Never creates new pods per attempt; OnFailure keeps
/// them).
struct Pod {
  std::shared_ptr<PodSpec> spec;
  int job = 0;
  /// Node index, -1 while unbound.
  int node = -1;
  /// Cards the device plugin gave it, one entry per unit (a card repeats under time-slicing).
  std::vector<int> cards;
  /// The process id on its cards (a new one per container start).
  std::uint64_t process = 0;
  /// False once the pod is deleted.
  bool alive = true;
  /// Its input-read flow on the node's data device, while running.
  std::optional<FlowId> input;
  /// Counted in its node's running jobs and NVLink tasks.
  bool running = false;
};

/// One job.
struct Job {
  /// Its spec: the workload's, or an elastic job's resized copy (`resized`).
  const workloads::JobSpec* spec = nullptr;
  std::shared_ptr<const workloads::JobSpec> resized;
  JobPhase phase = JobPhase::kWaiting;
  /// Needs NVLink (for the NVLink contention metric and the competition index).
  bool nvlink = false;
  bool ever_started = false;
  /// Pods of the current attempt.
  std::vector<int> pods;
  int bound = 0;
  /// Attempts started so far minus one (0 for the first).
  int attempt = 0;
  /// Failed attempts, counted against backoffLimit.
  int failures = 0;
  /// In-place restarts since the containers last ran for the kubelet's reset period
  /// (CrashLoopBackOff).
  int crash_restarts = 0;
  /// Work in steps: done, and done at the last checkpoint.
  double done = 0.0;
  double checkpointed = 0.0;
  /// When the last checkpoint was written (the epoch before the first).
  TimePoint checkpointed_at{};
  /// Steps per second now.
  double rate = 0.0;
  /// The share of its running time the job computes: interval / (interval + stall) for a gang
  /// whose blocking checkpoints stall it (faults.gang, sim/model/gang_failures.hpp); 1 otherwise.
  double compute_share = 1.0;
  TimePoint last_update{};
  TimePoint started{};
  EventId finish_event;
  EventId memory_event;
  EventId checkpoint_event;
  /// Set when the job first starts; jobs of one model, batch size, precision and GPU model share
  /// one (RunContext::profile).
  std::shared_ptr<const workloads::ModelProfile> profile;
  std::optional<FlowId> ring;
  double ideal_ring = 0.0;
  workloads::StepTime step{};
};

/// The pods of the job's attempt that compute: all of them but a leader (JobSpec::leader, the
/// last pod), which coordinates only.
inline std::span<const int> worker_pods(const Job& job) {
  const std::span<const int> all(job.pods);
  return job.spec->leader && !all.empty() ? all.first(all.size() - 1) : all;
}

/// GPUs (device-plugin units) the whole job asks for.
inline int total_gpus(const Job& job) {
  return static_cast<int>(job.spec->pod_template.requests.gpus) * job.spec->replicas;
}

}  // namespace tidesim
