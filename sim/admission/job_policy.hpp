#pragma once
/// The job-level policy interface (docs/job-scheduling.md, "Job-level policies";
/// docs/writing-a-policy.md, "A job-level policy"). A job-level policy decides which jobs hold
/// GPUs: at its decision points (a job's pods created, a job ended and, if it has an interval,
/// periodically while jobs are active) it sees every active job and the cluster and returns the
/// jobs that should run. The admission layer (sim/model/admission_controller.hpp) acts on the
/// decision: it admits the chosen jobs (their pods go to the scheduling framework, which places
/// them) and suspends the admitted jobs that were not chosen.
///
/// A policy is a class deriving from JobPolicy (any decision) or OrderedJobPolicy (an order over
/// jobs and a greedy walk, as FIFO, SJF, SRTF and Tiresias are: builtin_job_policies.hpp),
/// registered by name (job_policy_registry.hpp) and selected by a scenario's
/// `admission: {policy: NAME}`.
#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tidesim/sim/admission/quota.hpp"
#include "tidesim/sim/admission/volcano_hypernode.hpp"
#include "tidesim/sim/api/cluster_view.hpp"
#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/workloads/job.hpp"

namespace tidesim {

/// The label the admission layer gives each pod of an admitted job under consolidation (its
/// value: the job's name), by which a policy can tell whose pods a node holds.
inline constexpr const char* kJobLabel = "tidesim.io/job";

class JobPolicyRegistry;
/// A job-policy registry (job_policy_registry.hpp) shared, unchanged, by everything read with it.
using JobPolicyRegistryPtr = std::shared_ptr<const JobPolicyRegistry>;

/// A policy entry's `admission:` mapping (docs/scenarios.md, docs/job-scheduling.md).
struct AdmissionConfig {
  /// The job-level policy's registered name: "fifo", "sjf", "srtf", "tiresias" or one a program
  /// registered (job_policy_registry.hpp).
  std::string policy = "fifo";
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
  /// Duration estimates are the known run time x exp(N(0, sigma^2)), drawn per job (stream
  /// "duration-estimate"); 0: known durations (an oracle). Assumption, a parameter.
  double estimate_sigma = 0.0;
  /// A registered policy's own parameters (`args:`), scalars as written; empty for built-ins.
  std::map<std::string, std::string> args;
  /// The policy's typed args, as its registry entry's decoder read them from `args:`
  /// (JobPolicyEntry::decode; read them with job_args()); empty for a policy without a decoder.
  std::any typed_args;
  /// The registry the entry was read with, whose factory builds the policy (make_job_policy);
  /// null: the default registry.
  JobPolicyRegistryPtr registry;
  /// The run's seed, set by the admission layer before it makes the policy (a policy that draws,
  /// such as Pollux' search, seeds its own stream from it).
  std::uint64_t seed = 0;
  /// Kueue-style ClusterQueues and LocalQueues (`queues:`, sim/admission/quota.hpp); nullopt: none.
  /// With queues, each ClusterQueue's queueingStrategy replaces `backfill`.
  std::optional<QuotaConfig> quotas;
  /// Volcano's HyperNodes (`hypernodes:`, sim/admission/volcano_hypernode.hpp); null: none.
  std::shared_ptr<const volcano::HyperNodeSource> hypernodes;
  SourceLocation where;
};

/// The typed args `config` holds (AdmissionConfig::typed_args), or the default `Args` when it
/// holds none (a configuration made in code, without `args:`).
/// Throws std::invalid_argument when `config` holds string args but no typed ones (args its
/// registry entry did not decode, which the policy would not read).
template <class Args>
Args job_args(const AdmissionConfig& config) {
  if (config.typed_args.has_value()) {
    return std::any_cast<const Args&>(config.typed_args);
  }
  if (!config.args.empty()) {
    throw std::invalid_argument("job-level policy '" + config.policy +
                                "' reads typed args: decode `args:` with its registry entry");
  }
  return Args{};
}

/// What a policy sees of one active (submitted, not ended) job.
struct JobView {
  int id = 0;
  /// The job's spec (its pod template, gang, ...); null in a state built by hand.
  const workloads::JobSpec* spec = nullptr;
  /// The job's name (its workload entry's or trace row's).
  std::string name;
  /// When its first pods were created, and its place in that order (ties of `submitted`).
  TimePoint submitted{};
  std::int64_t order = 0;
  /// GPUs (device-plugin units) the job asks for: its pods' GPUs x its replicas.
  int gpus = 0;
  /// Admitted now (its pods may be queued, bound or running).
  bool admitted = false;
  /// The estimated whole run time and the estimated time left, seconds: the known uncontended
  /// run time (docs/job-scheduling.md, "Run times") x exp(N(0, estimate_sigma^2)), and that x
  /// (1 - progress).
  double estimate_s = 0.0;
  double remaining_s = 0.0;
  /// Steps done / steps, 0..1 (work lost to interruptions is not counted).
  double progress = 0.0;
  /// GPU-seconds and seconds it has been admitted since submission; seconds not admitted.
  double attained_gpu_s = 0.0;
  double admitted_s = 0.0;
  double waiting_s = 0.0;
  /// Attempts interrupted so far (suspensions, preemptions, failures): its restarts.
  int restarts = 0;
  /// Pods of its current attempt, and how many of them are bound now.
  int pods = 0;
  int pods_bound = 0;
  /// Its size: replicas now (`gpus` = replicas x gpus_per_replica). An elastic job may be given
  /// any count in min_replicas..max_replicas and a total batch in min_batch..max_batch
  /// (JobDecision::replicas, batch_size); a job of a fixed size has min = max = replicas.
  int replicas = 1;
  int gpus_per_replica = 1;
  bool elastic = false;
  int min_replicas = 1;
  int max_replicas = 1;
  int min_batch = 0;
  int max_batch = 0;
  /// The total batch the last decision gave it; 0: its own rule (fixed, or adaptive).
  int batch_size = 0;
  /// The atomic (per GPU, per pass) batches an elastic job's replica takes.
  int min_atomic_batch = 0;
  int max_atomic_batch = 0;
  /// The nodes its bound pods are on, one entry per node (the order pods were bound), and the
  /// GPUs it holds on each: its placement now (empty while none is bound).
  std::vector<std::string> nodes;
  std::vector<int> placement;
  /// The pods (indices in its pods, ascending) of an admitted job that the admission layer holds
  /// until a decision names their nodes (JobDecision::pod_nodes with an empty name, or a restarted
  /// partition's pods for a policy that places_held_pods()).
  std::vector<int> held;
  /// Its placement in replicas (pods) per node: each entry of `placement` over gpus_per_replica.
  /// The one conversion of a job's GPUs to its replicas, for a policy that counts replicas.
  std::vector<int> replica_placement() const;
  /// Its work in steps, the steps left (at its batch now: workloads::MeasuredSpeed::steps_left_at)
  /// and its steps per second alone on each GPU model it can run on now (a job of Gavel's
  /// throughput table, workloads/gavel_jobs.hpp; empty for other jobs).
  std::int64_t steps = 0;
  double steps_left = 0.0;
  std::vector<std::pair<std::string, double>> throughputs;
  /// Its planning profile by epoch (a Shockwave job: workloads::EpochProfile), owned by its spec;
  /// null for other jobs. Its epochs done are floor(progress x epochs), or `epochs_done` when
  /// that is set.
  const workloads::EpochProfile* epochs = nullptr;
  /// Its epochs done as the policy counts them (a Shockwave job whose batch the rounds change:
  /// floor(steps run / steps an epoch at its batch now), sim/admission/gavel_batch.hpp); < 0: none.
  double epochs_done = -1.0;
  /// What an adaptive job running now reports (workloads::StepReport: its configuration, its
  /// measured step, its gradient statistics); nullopt otherwise.
  std::optional<workloads::StepReport> report;
};

/// What a policy sees at a decision.
struct JobPolicyState {
  TimePoint now{};
  /// The active jobs, by id.
  std::vector<JobView> jobs;
  /// GPUs the nodes advertise (the sum of allocatable nvidia.com/gpu), and those held by the
  /// admitted jobs.
  std::int64_t capacity_gpus = 0;
  std::int64_t admitted_gpus = 0;
  /// The exact allocation state (what the API server holds): nodes, their allocatable and
  /// requested resources, the pods bound to them. Null in a state built by hand (a unit test).
  const ClusterView* cluster = nullptr;
  /// The modelled or measured seconds per step of job `id` on `placement` (GPUs per node, one
  /// entry per node used), without contention; empty when not set.
  std::function<double(int id, const std::vector<int>& placement)> step_seconds;
  /// The seconds job `id` would take to finish from its progress now on `placement` (GPUs per
  /// node) without contention or restarts, at total batch `batch_size` (0: its own rule); for an
  /// elastic job at the replica count the placement holds. Empty when not set.
  std::function<double(int id, const std::vector<int>& placement, int batch_size)>
      remaining_seconds;
};

/// A job's work continuing at another speed, without a restart (JobDecision::speed_change).
struct SpeedChange {
  /// Its speed from the decision on.
  std::shared_ptr<const workloads::MeasuredSpeed> speed;
  /// Its work from the decision on, in the new speed's units (a Shockwave job's steps at its new
  /// batch): `done` of `steps`, 0 <= done <= steps, steps >= 1.
  double done = 0.0;
  std::int64_t steps = 1;
  /// An elastic job's model from the decision on, whose speeds a resize or a move reads (null:
  /// its model as before).
  std::shared_ptr<const workloads::ElasticModel> elastic;
};

/// A policy's decision: the jobs that should hold GPUs after it, and optional placement hints.
struct JobDecision {
  /// Job ids. An admitted job not listed is suspended (its attempt stops and loses the work
  /// since its last checkpoint); a listed job not admitted is admitted. Their GPUs may not
  /// exceed the capacity.
  std::vector<int> run;
  /// A job's nodes (by name): its pods released by this decision may only be placed on them
  /// (a required node affinity on metadata.name). At least one: an empty list is refused (a job
  /// that may run on any node has no entry). The framework still filters them; a pod that
  /// fits none stays pending (JobView::pods_bound shows it).
  std::map<int, std::vector<std::string>> nodes;
  /// An elastic job's replica count from this decision on (within its JobView range); absent:
  /// its count now. A chosen job whose count (or batch_size) changes is resized: a running job
  /// checkpoints, its pods are deleted and `replicas` new ones scheduled, and its work resumes
  /// after run.pod_startup (AdaptDL's re-scale). Capacity is checked at the new counts.
  std::map<int, int> replicas;
  /// An elastic job's total batch size (within its range); absent: the last one given, 0: its
  /// own rule, workloads::kAdaptiveBatch: the batch it chooses at each epoch.
  std::map<int, int> batch_size;
  /// A job's node for each of its pods, in pod order (as many as its replicas after the
  /// decision): its pods released by this decision are placed exactly there (each a required
  /// node affinity on its one node), the framework still filtering. Takes the place of `nodes`.
  /// An empty name leaves the pod unplaced: the admission layer holds it, even though its job is
  /// admitted, until a later decision names its node (Volcano's ready gang whose other tasks
  /// stay pending).
  std::map<int, std::vector<std::string>> pod_nodes;
  /// Admitted elastic jobs to move to their pod_nodes at the same size: a resize that changes
  /// only where the job runs (a checkpoint-restart, as the artifact's Pollux reallocates).
  std::vector<int> move;
  /// A job this decision admits (not admitted before it): its work starts this long after its
  /// pods are bound, beyond run.pod_startup (the restart overhead of Shockwave's simulator,
  /// gavel_restart.hpp). Ignored for a job admitted already.
  std::map<int, Duration> start_delay;
  /// Active jobs whose speed and work change at this decision, running or not, without a
  /// restart (their work since the last checkpoint is kept, and a checkpoint is written): a
  /// Shockwave job whose batch changes between rounds, its steps counted again at the new batch
  /// (sim/admission/gavel_batch.hpp). Applied before the jobs are suspended, resized or
  /// admitted. A change without a speed or with done outside 0..steps is refused.
  std::map<int, SpeedChange> speed_change;
};

/// A job-level policy. One instance serves one run (one policy entry, one seed), so it may keep
/// state between decisions; decide() is called in simulated-time order.
class JobPolicy {
 public:
  virtual ~JobPolicy() = default;
  virtual std::string_view name() const = 0;
  /// The period of decisions between job events while jobs are active; nullopt: event-driven.
  virtual std::optional<Duration> interval() const { return std::nullopt; }
  virtual JobDecision decide(const JobPolicyState& state) = 0;
  /// The work of its decisions since the last call, in events (a search's evaluations): charged
  /// to the run's event budget (Simulation::charge), so that --max-events holds a policy that
  /// searches as it holds the events (docs/robustness.md). 0 for a policy whose decisions cost
  /// about what an event does.
  virtual std::uint64_t take_work() { return 0; }
  /// Counts of its own that the run reports among its metrics when it ends (Gavel's lease
  /// extensions); none by default.
  virtual void add_metrics(std::map<std::string, double>& out) const { (void)out; }
  /// Whether it places the held pods of admitted jobs (JobView::held) in later decisions, so that
  /// a restarted partition's pods wait for it rather than go to the scheduler unplaced.
  virtual bool places_held_pods() const { return false; }
};

/// A policy defined by an order over jobs: a decision walks the jobs in that order and chooses
/// each whose GPUs fit what is left (with backfill, walking on past one that does not; without,
/// stopping there). A non-preemptive policy keeps every admitted job and fills what they leave; a
/// preemptive one decides afresh over every job. Kueue-style queues (`queues:`) use the order.
class OrderedJobPolicy : public JobPolicy {
 public:
  OrderedJobPolicy(bool preemptive, bool backfill) : preemptive_(preemptive), backfill_(backfill) {}

  bool preemptive() const { return preemptive_; }
  bool backfill() const { return backfill_; }
  /// Called once before each decision's order is asked for (Tiresias moves jobs between queues).
  virtual void prepare(const JobPolicyState& state) { (void)state; }
  /// True when `a` goes before `b`; jobs neither before the other go by submission.
  virtual bool before(const JobView& a, const JobView& b) const = 0;
  /// The indices of state.jobs in the policy's order.
  std::vector<std::size_t> order(const JobPolicyState& state) const;
  /// prepare(), then the walk.
  JobDecision decide(const JobPolicyState& state) override;

 private:
  bool preemptive_;
  bool backfill_;
};

}  // namespace tidesim
