#pragma once
/// The `workload:` section of a scenario (docs/scenario-workload.md) and the jobs it generates:
/// synthetic arrivals (burst, Poisson, diurnal) over a weighted job mix, or a trace replay.
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/engine/random.hpp"
#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/workloads/catalogue.hpp"
#include "tidesim/workloads/distributions.hpp"
#include "tidesim/workloads/gavel_jobs.hpp"
#include "tidesim/workloads/job.hpp"
#include "tidesim/workloads/pollux_source.hpp"
#include "tidesim/workloads/step_time.hpp"
#include "tidesim/workloads/trace.hpp"

namespace tidesim::workloads {

/// When jobs arrive.
/// The shortest checkpoint_interval other than 0s (none): 1 s. A checkpoint is an event per running
/// job, so the bound caps checkpoint events at one per job per simulated second (1us made 3.6e9
/// events for a 1 h job); real training checkpoints every few minutes at most, since each writes
/// the whole model.
inline constexpr Duration kMinCheckpointInterval = std::chrono::seconds(1);

struct ArrivalSpec {
  enum class Process { kBurst, kPoisson, kDiurnal };
  Process process = Process::kBurst;
  /// Number of jobs.
  int count = 1;
  /// Burst instant, or the start of a Poisson/diurnal process.
  Duration start{};
  /// Poisson / diurnal: mean time between arrivals (1 / base rate).
  Duration mean_interarrival = std::chrono::seconds(60);
  /// Diurnal: rate(t) = base x (1 + amplitude x cos(2 pi (t - peak_at) / period)), amplitude in
  /// [0, 1].
  double amplitude = 0.5;
  Duration period = std::chrono::hours(24);
  Duration peak_at = std::chrono::hours(14);
};

/// One entry of the job mix.
struct MixEntry {
  /// Name prefix of the jobs this entry makes.
  std::string name;
  /// Relative weight (> 0).
  double weight = 1;
  /// Template: pod_template, replicas, model, batch_size, precision, steps, checkpoint interval,
  /// backoff limit (submit_time and name are set per job).
  JobSpec job;
  /// Run time drawn per job, seconds (instead of job.steps).
  std::optional<Distribution> duration_seconds;
  /// Total GPUs drawn per job; replicas = ceil(gpus / GPUs per pod).
  std::optional<Distribution> gpus;
  /// Where the entry is written (errors during generation point here).
  SourceLocation where;
  /// The manifest file the template comes from (resolved against the scenario's folder); empty
  /// for an inline template.
  std::string manifest;
  /// Where each label of the inline `pod.labels` is written (a Kueue queue name is checked
  /// against the policies' queues there, sim/scenario/quota_config.hpp).
  std::map<std::string, SourceLocation> label_where;
};

/// A trace to replay.
struct TraceSource {
  std::string file;
  TraceFormat format = TraceFormat::kAuto;
  /// Model, batch and precision of trace jobs that do not name their own.
  std::string model = "resnet50";
  int batch_size = 64;
  std::string precision = "amp";
  /// The GPU model the trace's run times were measured on (`reference_gpu`) for a job whose
  /// record names none (openb's gpu_spec: the first model it names); empty: the workload's.
  std::string reference_gpu;
  /// Pod fields common to every job (image, labels, scheduler name, ...); requests come from the
  /// trace.
  PodSpec pod;
  /// Submit times are multiplied by this (compresses or stretches the trace), > 0.
  double time_scale = 1.0;
  /// Replay at most this many jobs, earliest first (0 = all).
  std::int64_t limit = 0;
  /// Run time of jobs the trace gives none (openb multigpu50); nullopt = such a job is an error.
  std::optional<Duration> default_duration;
  /// Replay openb pods that were never scheduled in the real cluster.
  bool include_unscheduled = true;
  /// Each job's Kueue queue (label kueue.x-k8s.io/queue-name) is its record's `cluster` column
  /// (a Philly virtual cluster, a team); records with none get no label.
  bool queue_from_cluster = false;
  Duration checkpoint_interval = std::chrono::minutes(30);
  int backoff_limit = 6;
  RestartPolicy restart_policy = RestartPolicy::kNever;
  /// Every trace job's PodGroup (min_member 0: all its pods); nullopt: no gangs.
  std::optional<GangSpec> gang;
  SourceLocation where;
};

/// The parsed `workload:` section.
struct WorkloadSpec {
  std::optional<ArrivalSpec> arrivals;
  std::vector<MixEntry> mix;
  std::optional<TraceSource> trace;
  /// A Pollux artifact workload replayed with its applications' measurements.
  std::optional<PolluxSource> pollux;
  /// A Gavel or Shockwave trace whose jobs run at the throughput table's speeds (gavel_jobs.hpp).
  std::optional<GavelSource> gavel;
  /// `reference_gpu`: the GPU model run times are measured on, for jobs that name none (empty:
  /// the cluster's most common, sim/model/reference_speed.hpp).
  std::string reference_gpu;
  /// Traced models defined by the scenario (added to the built-in catalogue).
  std::vector<ModelDefinition> models;
  /// The file the section came from, and where in it.
  std::string file;
  SourceLocation where;
};

/// Parses the `workload:` mapping `node` of scenario `file`; relative manifest and trace paths
/// resolve against `base_dir`. Strict: unknown keys, missing fields and bad values are
/// InputErrors naming file, line and field.
WorkloadSpec parse_workload(const ConfigNode& node, const std::string& file,
                            const std::string& base_dir);

/// The catalogue a run of `spec` uses: built-in models plus spec.models.
Catalogue catalogue_of(const WorkloadSpec& spec);

/// The uncontended conditions used to turn a run time into steps.
struct SpeedReference {
  /// GPU model the jobs are assumed to run on (the driver passes the cluster's).
  std::string gpu = "A10";
  /// Storage bandwidth per worker, bytes/s.
  double input_bandwidth = std::numeric_limits<double>::infinity();
  /// Ring all-reduce bus bandwidth, bytes/s, when `placement` is unset.
  double allreduce_bandwidth = std::numeric_limits<double>::infinity();
  /// The conditions of a job alone on its reference placement on nodes of a GPU model (the
  /// driver's: its pods packed onto the fewest nodes, sim/model/reference_speed.hpp); unset: no
  /// placement, allreduce_bandwidth for every job.
  std::function<StepConditions(const JobSpec& job, const std::string& gpu)> placement = nullptr;
};

/// The jobs of `spec`, sorted by submit time (ties in generation order). Synthetic jobs draw
/// from `rng` in a fixed order (arrival time, mix entry, GPUs, run time per job). A run time
/// becomes steps = round(duration / step time) at `speed`: on the job's reference GPU
/// (reference_gpu_of(job, speed.gpu)) in its reference placement. Gavel's generator
/// (`workload.gavel.generate` without a seed) draws with `run_seed`, the run's seed.
std::vector<JobSpec> generate_jobs(const WorkloadSpec& spec, RandomStream& rng,
                                   const SpeedReference& speed = {}, std::uint64_t run_seed = 0);

/// `job`'s step alone on its reference placement on `speed` (its reference GPU,
/// reference_gpu_of(job, speed.gpu)), seconds: what a run time converts at. Throws as
/// Catalogue::profile() does.
double reference_step_seconds(const JobSpec& job, const Catalogue& catalogue,
                              const SpeedReference& speed);

/// Converts trace records to jobs (used by generate_jobs for a trace source).
std::vector<JobSpec> jobs_from_trace(const Trace& trace, const TraceSource& source,
                                     const Catalogue& catalogue, const SpeedReference& speed);

}  // namespace tidesim::workloads
