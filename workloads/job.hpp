#pragma once
/// A training job as the simulator runs it: pods built from one template, the model they train
/// and the amount of work (steps) they must finish.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/api/pod_traits.hpp"
#include "tidesim/sim/engine/time.hpp"
#include "tidesim/workloads/end_state.hpp"

namespace tidesim::workloads {

struct LlmSpec;  // workloads/llm_job.hpp

/// The most GPUs one job may ask for, all its pods together: a mix entry's `gpus:`, the same
/// bound as `replicas`, and a manifest's pod GPUs x parallelism (docs/robustness.md).
inline constexpr std::int64_t kMaxJobGpus = 100'000;

/// The label naming a job's Kueue LocalQueue (sim/admission/quota.hpp).
inline constexpr const char* kQueueNameLabel = "kueue.x-k8s.io/queue-name";

/// The label Volcano's job controller gives each pod of a task with a partitionPolicy: its
/// partition, pod index / partitionSize (volcano-sh/apis batch/v1alpha1 TaskPartitionID).
inline constexpr const char* kPartitionIdLabel = "volcano.sh/partition-id";

/// What happens when a pod's container fails (Kubernetes restartPolicy; a Job allows only these
/// two). Never: the pod fails, and the Job controller creates a replacement pod after its
/// back-off, which the scheduler places afresh. OnFailure: the kubelet restarts the container in
/// place (same node, same cards) after CrashLoopBackOff.
enum class RestartPolicy { kNever, kOnFailure };

/// "Never" / "OnFailure"; nullopt for other text.
std::optional<RestartPolicy> parse_restart_policy(const std::string& text);
const char* to_string(RestartPolicy policy);

/// How a job's pods are gang-scheduled (docs/job-scheduling.md).
enum class GangMode {
  /// scheduler-plugins' Coscheduling: pods are reserved one per cycle and wait at Permit until
  /// `min_member` are assigned, or are all rejected when `schedule_timeout` passes.
  kPermit,
  /// Volcano / KAI: the whole gang is placed in one scheduling cycle, or none of it.
  kAllOrNothing,
};

/// "permit" / "all-or-nothing".
const char* to_string(GangMode mode);

/// A job's PodGroup (scheduler-plugins' PodGroup spec).
/// A Volcano PodGroup's spec.networkTopology (volcano-sh/apis pkg/apis/scheduling/v1beta1
/// NetworkTopologySpec): the gang must be placed within one HyperNode of tier at most
/// highestTierAllowed (hard), or prefers the lowest tier it can get (soft). Read by the `volcano`
/// job-level policy (docs/topology-aware.md, "Volcano").
struct NetworkTopologySpec {
  bool hard = true;
  int highest_tier_allowed = 1;
  /// highestTierName: the highest tier named by the spec.tierName of its HyperNodes, set instead
  /// of highestTierAllowed ("" for none). The scheduler's session translates it to that tier; a
  /// name no HyperNode has leaves the group without a hard tier (framework/session.go
  /// translateHighestTierNameToAllowed).
  std::string highest_tier_name;
  friend bool operator==(const NetworkTopologySpec&, const NetworkTopologySpec&) = default;
};

/// A Volcano Job task's spec.partitionPolicy (volcano-sh/apis batch/v1alpha1
/// PartitionPolicySpec): the job's pods in `total_partitions` partitions of `partition_size`
/// (pod i in partition i / partition_size, the job controller's `volcano.sh/partition-id`
/// label), each placed within one HyperNode of its own `network_topology`; at least
/// `min_partitions` of them must be placeable for the gang to be ready. Volcano's job controller
/// writes it into the PodGroup as one spec.subGroupPolicy entry (subGroupSize = partitionSize,
/// minSubGroups = minPartitions, matchLabelKeys [volcano.sh/partition-id]), which the `volcano`
/// job-level policy schedules (docs/topology-aware.md, "Volcano").
struct PartitionPolicySpec {
  int total_partitions = 1;
  int partition_size = 1;
  int min_partitions = 0;
  std::optional<NetworkTopologySpec> network_topology;
  friend bool operator==(const PartitionPolicySpec&, const PartitionPolicySpec&) = default;
};

struct GangSpec {
  GangMode mode = GangMode::kPermit;
  /// spec.minMember; 0: every pod of the job (replicas).
  int min_member = 0;
  /// spec.scheduleTimeoutSeconds; Coscheduling's default permitWaitingTimeSeconds is 60 s
  /// (scheduler-plugins apis/config/v1/defaults.go).
  Duration schedule_timeout = std::chrono::seconds(60);
  /// spec.minResources set to minMember pods' GPUs (what training operators fill in): PreFilter
  /// then rejects the group's pods while the cluster's free GPUs cannot hold the group.
  bool min_resources = false;
  /// The group comes from Kubernetes' Workload API (workloads/k8s_workload.hpp): KEP-4671's gang.
  bool workload_api = false;
  /// KEP-5732: the node label whose one value all pods of the group share ("" for none).
  std::string topology_key;
  /// spec.networkTopology; nullopt: none.
  std::optional<NetworkTopologySpec> network_topology;
  /// A Volcano task's partitionPolicy (its PodGroup's subGroupPolicy); nullopt: none.
  std::optional<PartitionPolicySpec> partition_policy;
  friend bool operator==(const GangSpec&, const GangSpec&) = default;
};

/// A job's planning profile by epoch, as Shockwave's scheduler is given it (uw-mad-dash/shockwave
/// scheduler/utils.py generate_pickle_file: bs_every_epoch, duration_every_epoch): the batch of
/// every epoch and the seconds that epoch takes alone on the reference GPU.
struct EpochProfile {
  std::vector<int> batch;
  std::vector<double> seconds;
};

/// A job's measured step time per placement, instead of the catalogue's step-time model (the
/// Pollux applications: workloads/pollux.hpp). Immutable, shared by the runs of a workload.
class MeasuredSpeed {
 public:
  virtual ~MeasuredSpeed() = default;
  /// Seconds per step with `gpus_per_node` GPUs on each node the job uses (in any order).
  virtual double step_seconds(const std::vector<int>& gpus_per_node) const = 0;
  /// The part of step_seconds the GPUs compute (the step less its gradient sync), same placement.
  virtual double compute_seconds(const std::vector<int>& gpus_per_node) const = 0;
  /// A speed that changes with progress (an elastic job's epochs): seconds per step and their
  /// computed part once `done` steps are done, until next_change(done). By default the same at
  /// every step.
  virtual double step_seconds_at(const std::vector<int>& gpus_per_node, double done) const {
    (void)done;
    return step_seconds(gpus_per_node);
  }
  virtual double compute_seconds_at(const std::vector<int>& gpus_per_node, double done) const {
    (void)done;
    return compute_seconds(gpus_per_node);
  }
  /// The first step count after `done` at which the speed changes; nullopt: it never does.
  virtual std::optional<double> next_change(double done) const {
    (void)done;
    return std::nullopt;
  }
  /// Seconds per step and their computed part on GPUs of model `gpu` (a node group's `gpu`): a
  /// speed that depends on the GPU type (Gavel's throughput table, workloads/gavel_jobs.hpp). By
  /// default the same on every model.
  virtual double step_seconds_on(const std::string& gpu, const std::vector<int>& gpus_per_node,
                                 double done) const {
    (void)gpu;
    return step_seconds_at(gpus_per_node, done);
  }
  virtual double compute_seconds_on(const std::string& gpu, const std::vector<int>& gpus_per_node,
                                    double done) const {
    (void)gpu;
    return compute_seconds_at(gpus_per_node, done);
  }
  /// Whether the job holds the card memory of its catalogue model (job_profile). False for a
  /// speed from a table that has no memory (Gavel's throughputs, whose measured pairs ran on
  /// their type, so two of its jobs on one card must not be OOM-killed by a model it lacks).
  virtual bool holds_memory() const { return true; }
  /// The steps left of `total` once `done` are done, in the steps a scheduler counts now (a job
  /// whose batch changes counts its steps at the batch now); by default total - done.
  virtual double steps_left_at(double done, double total) const {
    return total > done ? total - done : 0.0;
  }
  /// Steps per second alone on each GPU model it can run on, once `done` steps are done; empty
  /// for a speed that does not depend on the GPU type.
  virtual std::vector<std::pair<std::string, double>> throughputs_at(double done) const {
    (void)done;
    return {};
  }
  /// Its planning profile by epoch (a Shockwave job's, workloads/gavel_jobs.hpp); null for others.
  virtual const EpochProfile* epoch_profile() const { return nullptr; }
  /// What an adaptive job reports to its scheduler on `gpus_per_node` at `done` (AdaptDL's
  /// profile and gradient statistics, StepReport); nullopt for other jobs.
  virtual std::optional<struct StepReport> report(const std::vector<int>& gpus_per_node,
                                                  double done) const;
};

/// One measurement an adaptive (AdaptDL) job reports to its scheduler: the configuration it runs
/// on a placement now, that configuration's measured step, and its gradient statistics (Pollux's
/// scheduler fits its throughput model to these and takes the statistical efficiency from them).
struct StepReport {
  int atomic_bsz = 0;
  int accum_steps = 0;
  /// Seconds of a step that synchronises the gradients, and of its sync.
  double step_time = 0;
  double sync_time = 0;
  /// The gradient's squared norm and variance at its batch in its epoch now.
  double grad_sqr = 0;
  double grad_var = 0;
};

inline std::optional<StepReport> MeasuredSpeed::report(const std::vector<int>& gpus_per_node,
                                                       double done) const {
  (void)gpus_per_node;
  (void)done;
  return std::nullopt;
}

/// A batch size that asks an elastic job to choose its batch at each epoch (AdaptDL's rule), as
/// Pollux' scheduler runs jobs (ElasticModel::speed, JobDecision::batch_size).
inline constexpr int kAdaptiveBatch = -1;

/// An elastic job's model (docs/pollux.md, "Elastic jobs"): its replica count and batch
/// size may change between attempts (a resize: the job checkpoints and restarts on its new
/// allocation, as AdaptDL does). Its work (JobSpec::steps) is counted in units that do not
/// depend on its size, and speed() gives its speed at a size. Immutable, shared by the runs of a
/// workload.
class ElasticModel {
 public:
  virtual ~ElasticModel() = default;
  /// The replica counts it may run at, and the total batch sizes it accepts.
  virtual int min_replicas() const = 0;
  virtual int max_replicas() const = 0;
  virtual int min_batch_size() const = 0;
  virtual int max_batch_size() const = 0;
  /// The atomic (per GPU, per pass) batches a replica takes.
  virtual int min_atomic_batch() const { return 1; }
  virtual int max_atomic_batch() const { return max_batch_size(); }
  /// Its speed at `replicas` and total batch `batch_size` (0: the job's own rule: its fixed batch
  /// or, for an adaptive job, the batch it chooses at each epoch; kAdaptiveBatch: the batch it
  /// chooses at each epoch, where it can).
  virtual std::shared_ptr<const MeasuredSpeed> speed(int replicas, int batch_size) const = 0;
};

/// One job: `replicas` identical pods (data-parallel workers) started from `pod_template`.
/// Work is counted in steps of the whole job (every pod does one local step per global step).
struct JobSpec {
  /// Unique within a run; pods are named "<name>-<index>".
  std::string name;
  /// The workload part that made it (a mix entry's name, a Pollux application, "trace"); empty
  /// when none says. Outputs only.
  std::string job_class;
  /// When the job is submitted (time since the start of the run).
  TimePoint submit_time{};
  /// Number of pods that run together (Kubernetes Job parallelism); at least 1.
  int replicas = 1;
  /// Requests, labels, annotations, env, image, selectors, affinity, tolerations, priority.
  PodSpec pod_template;
  /// Model catalogue key ("resnet50", "gpt2-124m", ...) or the name of a traced model.
  std::string model = "resnet50";
  /// Per-GPU (local) batch size, in samples (images or sequences).
  int batch_size = 64;
  /// "fp32" or "amp" (mixed precision).
  std::string precision = "amp";
  /// Total work in steps. 0 together with a `duration` means "convert the duration".
  std::int64_t steps = 0;
  /// A run time given instead of steps (traces, generators); converted to steps at the job's
  /// uncontended speed by steps_for_duration() (catalogue.hpp).
  std::optional<Duration> duration;
  /// The GPU model its `duration` was measured on (`reference_gpu`); empty: the GPU its node
  /// selector names (nvidia.com/gpu.product), else the workload's (reference_gpu_of()).
  std::string reference_gpu;
  /// Running time between checkpoints; a restart resumes from the last one. Zero: no
  /// checkpoints (a restart begins again from step 0).
  Duration checkpoint_interval = std::chrono::minutes(30);
  /// Kubernetes Job backoffLimit: failures allowed before the job is marked failed.
  int backoff_limit = 6;
  /// The pod template's restartPolicy (docs/model-workloads.md, "Restarts").
  RestartPolicy restart_policy = RestartPolicy::kNever;
  /// Set for trace jobs whose run was still going at the end of the trace (right-censored).
  bool censored = false;
  /// How its trace ended it: failed or cancelled, it ends failed when its work is done
  /// (ends_failed(); the Job controller's kFailed with that cause) instead of succeeding.
  TraceEndState trace_end_state = TraceEndState::kUnknown;
  /// Its PodGroup when it is gang-scheduled; nullopt: its pods are scheduled one by one.
  std::optional<GangSpec> gang;
  /// Set when its step time comes from measurements per placement; the catalogue's profile then
  /// only sets its memory (none when MeasuredSpeed::holds_memory() is false).
  std::shared_ptr<const MeasuredSpeed> measured;
  /// Set for an elastic job (its `measured` is then its speed at `replicas`).
  std::shared_ptr<const ElasticModel> elastic;
  /// Its step alone on its reference placement, seconds (kept where a run time is converted, else
  /// set by make_jobs; 0: unknown): the step-slowdown metric's reference.
  double reference_step_seconds = 0;
  /// Set for an LLM training job (`llm:`, workloads/llm_job.hpp): its step time and memory come
  /// from its transformer and parallel layout, not the catalogue's `model`.
  std::shared_ptr<const LlmSpec> llm;
  /// A second PodSet of one pod (a mix entry's `leader:`; a LeaderWorkerSet's leader, a JobSet's
  /// driver): its pod is created with the workers (after them, the job's last pod), held by the
  /// same gang, counted in the job's quota requests, and placed with them by Kueue's TAS (a
  /// PodSet group when both carry `podset-group-name`). It coordinates and computes nothing: it
  /// asks no GPUs, and the job's steps run on its `replicas` workers (docs/scenario-workload.md).
  std::optional<PodSpec> leader;
};

/// The PodSet names of a job with a leader, as Kueue's LeaderWorkerSet integration names them
/// (pkg/controller/jobs/leaderworkerset, leaderPodSetName / workerPodSetName); a job without one
/// is the single PodSet "main".
inline constexpr const char* kLeaderPodSet = "leader";
inline constexpr const char* kWorkerPodSet = "worker";

/// The GPU model `job`'s run time is measured on: its own reference_gpu, else the GPU model its
/// node selector requires (nvidia.com/gpu.product), else `fallback` (the workload's).
std::string reference_gpu_of(const JobSpec& job, const std::string& fallback);

/// GPUs the whole job occupies: replicas x whole GPUs per pod (a fractional pod counts 1).
std::int64_t job_gpus(const JobSpec& job);

}  // namespace tidesim::workloads
