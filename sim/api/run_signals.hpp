#pragma once
/// The signals a run emits. Metric collectors and trace writers subscribe; models and policies
/// never write output themselves.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/api/telemetry.hpp"
#include "tidesim/sim/engine/signal.hpp"
#include "tidesim/sim/engine/time.hpp"

namespace tidesim {

/// What happened to a job's pod.
enum class JobEventKind {
  kSubmitted,  // the job (all its pods) entered the scheduling queue
  kBound,      // a pod was bound to a node
  kStarted,    // all pods of the job are running: work progresses
  kOomKilled,  // a pod's process was killed for exceeding its GPU's memory
  kEvicted,    // a pod was evicted (node pressure, migration, node failure)
  kRestarted,  // the Job controller re-created a failed pod after back-off
  kSucceeded,  // all work done
  kFailed,     // backoffLimit exceeded, or a replayed job its trace ends as failed or cancelled
               // when its traced run is done (cause "failed" or "cancelled")
};

/// Kind as lower-case text ("submitted", "oom_killed", ...).
const char* to_string(JobEventKind kind);

/// What a job is, for the outputs (JobEvent::facts on kSubmitted; docs/outputs.md, jobs.csv).
struct JobFacts {
  /// The workload part that made it: a mix entry's name, a Pollux application, "trace"; empty
  /// when none says.
  std::string job_class;
  /// Where its step time comes from: "catalogue" (the model catalogue), "measured" (measurements
  /// per placement), "elastic" (a resizable measured job) or "llm" (its transformer and layout).
  std::string kind;
  std::string model;
  /// Per-GPU batch (an LLM job's micro-batch).
  int batch_size = 0;
  /// The run time it was given, seconds (0 when it was given steps), and its steps.
  double stated_seconds = 0.0;
  std::int64_t steps = 0;
  /// Seconds from its submission to its deadline (Gavel's SLO, a multiple of the job's run time
  /// alone: workloads::gavel_slo_seconds); 0 when it has none.
  double deadline_s = 0.0;
};

/// Where a started job's pods are on the fabric (JobEvent::fabric_span, kStarted on a
/// `cluster.fabric`): its distinct nodes, and per tier (0 nearest the nodes) how many domains they
/// span and the fewest domains of that tier that many nodes need.
struct FabricSpan {
  int nodes = 0;
  std::vector<int> domains;
  std::vector<int> fewest;
};

struct JobEvent {
  TimePoint at{};
  JobEventKind kind = JobEventKind::kSubmitted;
  std::string job;
  std::string pod;   // empty for job-level events
  std::string node;  // empty when not placed
  int gpus = 0;      // GPUs (device-plugin units) the job asks for in total
  bool nvlink_required = false;
  /// The job's attempt (0 for the first; each restart, in place or with new pods, adds one).
  int attempt = 0;
  /// kBound: the cards the device plugin gave the pod, one entry per unit (a card repeats
  /// under time-slicing). kOomKilled: the card whose memory ran out.
  std::vector<int> cards;
  /// kOomKilled: the other jobs with a process on that card, and the card's memory in use
  /// (after the killing allocation) and capacity, bytes.
  std::vector<std::string> co_located;
  std::int64_t memory_used = 0;
  std::int64_t memory_capacity = 0;
  /// kFailed of a replayed job its trace ends so: "failed" or "cancelled" (empty after
  /// backoffLimit). kEvicted: why ("preemption", "node-failure", "card-failure", "drain",
  /// "migration", "suspension"; empty when not said).
  std::string cause;
  /// kEvicted and kOomKilled: the GPU-seconds of work done since the job's last checkpoint that
  /// the stop threw away (running time since the later of the attempt's start and its last
  /// checkpoint, times the job's GPUs; 0 when it was not running). kEvicted: on the job's first
  /// evicted pod's event only; 0 on the others.
  double lost_gpu_seconds = 0.0;
  /// The job is scheduled as a gang (a PodGroup).
  bool gang = false;
  /// kSubmitted: seconds the job takes uncontended at the GPUs it asks for, alone on the
  /// cluster: its work (workloads/uncontended_time.hpp) plus its pods' start-up
  /// (run.pod_startup); 0 when its work is unknown. The isolated run time of finish-time
  /// fairness (docs/metrics.md).
  double uncontended_seconds = 0.0;
  /// kSubmitted: what the job is (valid during the emit only); nullptr on other events.
  const JobFacts* facts = nullptr;
  /// kStarted on a fabric: where its pods are; nullopt otherwise.
  std::optional<FabricSpan> fabric_span;
};

/// True state of one node at a sample instant.
struct NodeState {
  std::string name;
  /// Per card: share of time the card computes, in [0, 1].
  std::vector<double> gpu_utilization;
  /// Per card: memory in use and capacity, bytes.
  std::vector<std::int64_t> gpu_memory_used;
  std::int64_t gpu_memory_capacity = 0;
  /// NVLink-requiring tasks / (GPUs x 2).
  double nvlink_competition_index = 0.0;
  /// Per card: share of its NVLink bandwidth in use, in [0, 1] (0 without NVLink).
  std::vector<double> nvlink_utilization;
  /// Storage await of the node's data device, milliseconds.
  double storage_await_ms = 0.0;
  /// Device-plugin GPU units allocated and allocatable.
  int gpus_allocated = 0;
  int gpus_allocatable = 0;
};

/// The true cluster state, sampled every sample interval.
struct ClusterSample {
  TimePoint at{};
  std::vector<NodeState> nodes;
  /// Per node: a number that changes whenever that node's NodeState changes, so that consumers
  /// recompute per-node figures only for nodes that changed. When present (the Observer's
  /// samples) every sample of a run lists the same nodes in the same order; empty when unknown
  /// (hand-built samples): every node counts as changed.
  std::vector<std::uint64_t> node_revisions;
  int pending_pods = 0;
  int running_jobs = 0;
};

/// A running job's speed changed (start, contention change, stop). Rates hold until the next one.
struct JobRate {
  TimePoint at{};
  std::string job;
  bool running = false;
  bool nvlink_required = false;
  /// Collective (all-reduce) bus bandwidth the job gets now, bytes/s (0 for single-GPU jobs).
  double collective_bandwidth = 0.0;
  /// What it would get alone on an NVLink-connected placement of the same size, bytes/s.
  double ideal_collective_bandwidth = 0.0;
  /// Mean GPU utilisation of the job's GPUs, [0, 1].
  double gpu_utilization = 0.0;
  /// GPUs of the whole job; whether it has more than one pod; whether it is an LLM job.
  int gpus = 0;
  bool multi_pod = false;
  bool llm = false;
  /// Its step now and on its reference placement (0: none), seconds; the communication compute
  /// does not hide, seconds; an LLM job's model-FLOPs utilisation (0 for other jobs).
  double step_seconds = 0.0;
  double reference_step_seconds = 0.0;
  double comm_seconds = 0.0;
  double mfu = 0.0;
  /// Its ring's average rate now and what the ring would move where it runs with its links to
  /// itself (its average demand, or its bandwidth alone while it has none), bytes/s; 0 without a
  /// ring.
  double ring_rate = 0.0;
  double ring_demand = 0.0;
};

/// A scheduling cycle's outcome (for fallback and scheduling-latency metrics).
struct SchedulingEvent {
  TimePoint at{};
  std::string pod;
  std::string node;        // empty when unschedulable
  int fallback_stage = 0;  // 0 none, 1 or 2: the seed's two-stage fallback
};

/// Load forecasts made at one sample instant for a later one (the scenario's `prediction:`
/// section): per predictor, every node's predicted metrics, in the order of ClusterSample::nodes
/// (nullopt for a node with no scraped history yet).
struct LoadForecastBatch {
  TimePoint made_at{};
  TimePoint target{};
  /// Predictor names ("last", "ewma", "holt", "ar", "job-aware").
  std::vector<std::string> predictors;
  /// nodes[k][n]: predictor k's forecast of node n.
  std::vector<std::vector<std::optional<NodeMetrics>>> nodes;
};

/// All signals of one run.
/// The admission layer's quota bookkeeping (sim/admission/quota.hpp): a job of a ClusterQueue was
/// admitted (its GPUs count against the queue's quota) or released (suspended or ended).
struct QuotaEvent {
  TimePoint at{};
  std::string queue;  // the ClusterQueue
  std::string job;
  bool admitted = false;
  /// The queue's admitted GPUs after the change, and its nominal quota.
  std::int64_t usage_gpus = 0;
  std::int64_t nominal_gpus = 0;
  /// On a job's first admission: seconds from its submission (absent on later admissions).
  std::optional<double> wait_s;
};

/// A synchronous gang's life under the failures of `faults.gang` (sim/model/gang_life.hpp,
/// docs/failures.md "Gangs"), from its start to its end or the run's: its wall time split into
/// productive time and what was lost, seconds (productive + lost_work + detection + restart +
/// checkpoint + planned_downtime = wall), and its interruptions.
struct GangLifeRecord {
  TimePoint at{};  // when the life ended
  std::string job;
  int gpus = 0;
  double wall = 0.0;
  double productive = 0.0;
  double lost_work = 0.0;
  double detection = 0.0;
  double restart = 0.0;
  double checkpoint = 0.0;
  double planned_downtime = 0.0;
  /// Seconds it ran (not down).
  double running = 0.0;
  int planned = 0;
  /// Unexpected interruptions per component, every component of the section in its order.
  std::vector<std::pair<std::string, int>> unexpected;
};

/// Kueue topology-aware admission of one job (sim/model/topology_admission.hpp): admitted with
/// its assignment, or refused with Kueue's reason (emitted when the reason changes).
struct TopologyEvent {
  TimePoint at{};
  std::string job;
  std::string topology;
  bool admitted = false;
  std::string reason;  // empty when admitted
  /// Admitted: per topology level (outermost first), its label and how many of its domains the
  /// job's pods were assigned to (the gang's span).
  std::vector<std::pair<std::string, int>> span;
  /// Admitted: seconds since the first refusal for its topology (0 when never refused).
  double topology_wait_s = 0.0;
};

struct RunSignals {
  Signal<JobEvent> job;
  Signal<ClusterSample> sample;
  Signal<JobRate> rate;
  Signal<SchedulingEvent> scheduling;
  Signal<LoadForecastBatch> forecast;
  Signal<QuotaEvent> quota;
  Signal<GangLifeRecord> gang_life;
  Signal<TopologyEvent> topology;
};

}  // namespace tidesim
