#pragma once
/// Job-level scheduling policies from the literature: which jobs' gangs are admitted to the
/// cluster (docs/job-scheduling.md, "Job-level policies"). Pure decisions over a list of jobs
/// and a GPU capacity; the admission layer (sim/model/admission_controller.hpp) feeds them and acts
/// on them.
///  - FIFO: by submission (non-preemptive).
///  - SJF: shortest estimated run time first (non-preemptive).
///  - SRTF: shortest estimated remaining time first (preemptive); Schrage & Miller, "The queue
///    M/G/1 with the shortest remaining processing time discipline", Oper. Res. 14(4), 1966.
///  - Tiresias: discretised two-dimensional least-attained-service (attained service = GPUs x
///    running time), K queues split by thresholds, FIFO inside a queue, starvation promotion
///    (STARVELIMIT), preemptive; Gu et al., "Tiresias: A GPU Cluster Manager for Distributed
///    Deep Learning", NSDI'19, sections 3.2-3.3 and 4.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/admission/quota.hpp"
#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim {

enum class JobPolicyKind { kFifo, kSjf, kSrtf, kTiresias };

/// "fifo", "sjf", "srtf", "tiresias".
const char* to_string(JobPolicyKind kind);

/// A policy entry's `admission:` mapping (docs/scenarios.md).
struct AdmissionConfig {
  JobPolicyKind policy = JobPolicyKind::kFifo;
  /// Walk past a job that does not fit and admit later ones that do (the Pollux artifact's
  /// Tiresias does, simulator/tiresias.py); false: stop at the first job that does not fit.
  bool backfill = true;
  /// Period of the re-evaluations between arrivals and ends (SRTF, Tiresias): the Pollux
  /// artifact's scheduling interval, 60 s (simulator.py --interval).
  Duration interval = std::chrono::seconds(60);
  /// Tiresias: queue thresholds in GPU-seconds of attained service, ascending; K thresholds
  /// make K + 1 queues. Default one threshold of 16 GPU-hours (57,600 GPU-s): the Pollux
  /// artifact's Tiresias (simulator/tiresias.py `_queue_threshold = 3600 * 16`).
  std::vector<double> thresholds = {57'600.0};
  /// Tiresias: STARVELIMIT. A job outside the first queue that has waited at least
  /// starvation_limit x its running time since it was last promoted goes back to the first
  /// queue. 0: off (the artifact's `_solve_starvation = 0`).
  double starvation_limit = 0.0;
  /// Tiresias' consolidated placement: each pod of an admitted job prefers the nodes that run
  /// its siblings (a preferred pod affinity of weight 100 on kubernetes.io/hostname), so the job
  /// lands on as few nodes as the profile's other scores allow.
  bool consolidate = true;
  /// SJF / SRTF: duration estimates are the known run time x exp(N(0, sigma^2)), drawn per job
  /// (stream "duration-estimate"); 0: known durations (an oracle). Assumption, a parameter.
  double estimate_sigma = 0.0;
  /// Kueue-style ClusterQueues and LocalQueues (`queues:`, sim/admission/quota.hpp); nullopt: none.
  /// With queues, each ClusterQueue's queueingStrategy replaces `backfill`.
  std::optional<QuotaConfig> quotas;
  SourceLocation where;
};

/// What a policy knows of one active (submitted, not ended) job.
struct PolicyJob {
  int id = 0;
  TimePoint submitted{};
  /// Submission order (ties of `submitted`).
  std::int64_t order = 0;
  int gpus = 0;
  /// Admitted now (its pods may be queued, bound or running).
  bool admitted = false;
  /// SJF / SRTF: the estimated whole run time and the estimated time left, seconds.
  double estimate_s = 0.0;
  double remaining_s = 0.0;
  /// Tiresias: its queue (0 = highest priority), its place in it (smaller = earlier), the
  /// GPU-seconds attained since it entered queue 0 last (the artifact's executed_time x GPUs),
  /// its running seconds since then, and its waiting seconds since it last ran.
  int queue = 0;
  std::int64_t queue_seq = 0;
  double service_gpu_s = 0.0;
  double executed_s = 0.0;
  double starving_s = 0.0;
};

/// Tiresias' queue moves before a decision: a job in queue k whose service reaches
/// thresholds[k] is demoted to the last queue whose threshold it reached (and to the back of
/// it: queue_seq = next_seq++); with starvation_limit > 0 a waiting job outside queue 0 that
/// ran before and has starved for >= limit x executed_s is promoted to the back of queue 0, its
/// service, executed and starving times reset. Returns the jobs moved (demoted or promoted).
int tiresias_update(std::vector<PolicyJob>& jobs, const AdmissionConfig& config,
                    std::int64_t& next_seq);

/// The jobs to run now, by id, given `capacity` GPUs: the policy's order, each job admitted when
/// its GPUs fit what is left (then walking on with backfill, stopping without). Non-preemptive
/// policies keep every admitted job and fill what the admitted jobs leave; preemptive ones
/// (SRTF, Tiresias) decide afresh over every job.
/// Whether the policy decides afresh over every job (SRTF, Tiresias) rather than keeping the
/// admitted ones.
bool preemptive(JobPolicyKind kind);

/// The indices of `jobs` in the policy's order (ties by submission).
std::vector<std::size_t> policy_order(const std::vector<PolicyJob>& jobs,
                                      const AdmissionConfig& config);

std::vector<int> select_jobs(const std::vector<PolicyJob>& jobs, const AdmissionConfig& config,
                             std::int64_t capacity);

}  // namespace tidesim
