#pragma once
/// The result of a run: metadata, per policy per seed the metric values, per-job records, node
/// time series and notable events; its JSON form (schema "tidesim-result", version 1, documented
/// in docs/outputs.md); and the Recorder that fills one seed's record from a run's signals.
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "tidesim/sim/api/run_signals.hpp"
#include "tidesim/sim/metrics/collector.hpp"
#include "tidesim/sim/metrics/standard_collectors.hpp"
#include "tidesim/tools/lib/attempt_log.hpp"

namespace tidesim::app {

/// Name and version of the JSON schema written by to_json(); from_json() accepts these only.
inline constexpr const char* kResultSchemaName = "tidesim-result";
inline constexpr int kResultSchemaVersion = 1;

/// What was run.
struct RunMetadata {
  /// tidesim version that produced the result (kVersion).
  std::string tidesim_version;
  std::string scenario_name;
  std::string scenario_path;
  /// scenario_hash of the scenario text (sim/scenario/scenario.hpp): "fnv1a64:" + 16 hex digits.
  std::string scenario_hash;
  std::vector<std::uint64_t> seeds;
  std::vector<std::string> policies;
  /// The scenario's cluster and workload in a line each (tools/lib/scenario_describe.hpp), for
  /// the report's header; empty in results written before they were recorded.
  std::string cluster;
  std::string workload;
  /// What produced the result (tools/lib/provenance.hpp, docs/outputs.md); absent in results
  /// written before it was recorded.
  std::optional<nlohmann::json> provenance;
  /// What the run warns about (a policy under which jobs never bound), as printed on stderr;
  /// written only when there is any.
  std::vector<std::string> warnings;
  /// The records the result leaves out ("jobs", "events", "attempts"; `tidesim run --records`,
  /// tools/lib/result_records.hpp): their lists are empty because they were not written, not
  /// because nothing happened. Written only when there is any.
  std::vector<std::string> records_omitted;
  /// The study's headline metrics (tools/lib/headline_metrics.hpp): the rows the table leads
  /// with, the report's bars, what `check` tests. Written only when set; empty: the catalogue's
  /// headline rows.
  std::vector<std::string> headline_metrics;
  bool operator==(const RunMetadata&) const = default;
};

/// Published figures to compare with (the seed's table): metric -> policy -> value, in the
/// metric's catalogue unit (shares as fractions: 38.2% is 0.382).
struct Reference {
  std::string label;
  std::map<std::string, std::map<std::string, double>> values;
  bool operator==(const Reference&) const = default;
};

/// One job's life in one run. Times are seconds from the start of the run.
struct JobRecord {
  std::string name;
  double submit_s = 0.0;
  std::optional<double> first_bind_s;
  std::optional<double> start_s;
  std::optional<double> finish_s;
  /// "succeeded", "failed", "cancelled" (a replayed job its trace ends so,
  /// JobSpec::trace_end_state), "unfinished" (bound at least once, no final state by the end) or
  /// "unscheduled" (never bound).
  std::string state;
  /// GPUs (device-plugin units) the job ran on: the most of any of its attempts (an elastic job
  /// resized by its policy runs its attempts at different sizes), and those of its last attempt;
  /// both the GPUs it asked for at submission while it never started.
  int gpus = 0;
  int gpus_last = 0;
  /// Nodes the job's pods were bound to, in first-bind order, without repeats.
  std::vector<std::string> nodes;
  int oom_kills = 0;
  int restarts = 0;
  int evictions = 0;
  bool nvlink_required = false;
  /// NVLink-requiring running time with a collective, and the part of it that was contended (s).
  double nvlink_counted_s = 0.0;
  double nvlink_contended_s = 0.0;
  /// What the job is (JobFacts): the workload part that made it, where its step time comes from
  /// ("catalogue", "measured", "elastic", "llm"), its model and per-GPU batch, the run time it was
  /// given (nullopt: it was given steps) and its steps.
  std::string job_class;
  std::string kind;
  std::string model;
  int batch_size = 0;
  std::optional<double> stated_s;
  std::int64_t steps = 0;
  /// Its run time alone on the cluster at the GPUs it asks for, pod start-up included
  /// (JobEvent::uncontended_seconds; nullopt: unknown), the basis of its slowdown.
  std::optional<double> ideal_s;
  /// How fast it ran where it was placed (metrics::JobPlacementSpeed): its step against its
  /// reference step, its communication share, an LLM job's MFU, and the seconds its ring was
  /// slowed by links shared with other jobs.
  std::optional<double> step_slowdown;
  std::optional<double> comm_share;
  std::optional<double> mfu;
  std::optional<double> fabric_contended_s;
  /// GPU-seconds of work its stops threw away (evictions and OOM kills since the last checkpoint).
  double lost_gpu_s = 0.0;
  /// On a fabric: how many domains of each tier (0 nearest the nodes) its last attempt's nodes
  /// spanned; empty without a fabric or before it started.
  std::vector<int> fabric_span;
  bool operator==(const JobRecord&) const = default;
};

/// A notable event: "oom_killed", "evicted", "restarted", "failed" (job events) or "fallback"
/// (a scheduling cycle in fallback stage 1 or 2).
struct EventRecord {
  double t_s = 0.0;
  std::string kind;
  std::string job;
  std::string pod;
  std::string node;
  int fallback_stage = 0;
  bool operator==(const EventRecord&) const = default;
};

/// One node's sampled state at its change points: a row at the first sample, then a row only at
/// a sample where a value differs from the node's previous row (it held until then), and a row
/// at the run's last sample. Every vector has one entry per t_s (the node's own instants, a subset
/// of the cluster's).
struct NodeSeries {
  std::string node;
  /// GPU memory per card, bytes (as last sampled).
  std::int64_t gpu_memory_capacity_bytes = 0;
  std::vector<double> t_s;
  /// [sample][card] utilisation in [0, 1], rounded to 1e-6.
  std::vector<std::vector<double>> gpu_utilization;
  /// [sample][card] bytes in use.
  std::vector<std::vector<std::int64_t>> gpu_memory_used_bytes;
  /// [sample][card] NVLink utilisation in [0, 1], rounded to 1e-6 (empty rows without NVLink).
  std::vector<std::vector<double>> nvlink_utilization;
  std::vector<double> nvlink_competition_index;
  std::vector<double> storage_await_ms;
  std::vector<int> gpus_allocated;
  std::vector<int> gpus_allocatable;
  bool operator==(const NodeSeries&) const = default;
};

/// Cluster-level sampled series and the per-node series. Cluster vectors have one entry per t_s.
struct ClusterSeries {
  std::vector<double> t_s;
  std::vector<int> pending_pods;
  std::vector<int> running_jobs;
  /// Cross-node population std-dev of node GPU utilisation per sample (null: no GPU node).
  std::vector<std::optional<double>> gpu_util_stddev;
  /// LSCS per sample (see LscsCollector).
  std::vector<std::optional<double>> lscs;
  std::vector<NodeSeries> nodes;
  bool operator==(const ClusterSeries&) const = default;
};

/// One policy run with one seed.
struct SeedRun {
  std::string policy;
  std::uint64_t seed = 0;
  /// When the run stopped, seconds.
  double end_s = 0.0;
  metrics::MetricValues metrics;
  std::vector<JobRecord> jobs;
  std::vector<EventRecord> events;
  /// One record per pod of each attempt (attempts.csv).
  std::vector<AttemptRecord> attempts;
  /// Absent when the run did not record series (see RecorderOptions).
  std::optional<ClusterSeries> series;
  bool operator==(const SeedRun&) const = default;
};

/// A whole result: every policy x seed run.
struct RunResult {
  RunMetadata metadata;
  std::optional<Reference> reference;
  /// In policy order, then seed order.
  std::vector<SeedRun> runs;
  bool operator==(const RunResult&) const = default;

  /// The runs of `policy`, in stored order.
  std::vector<const SeedRun*> runs_of(std::string_view policy) const;
  /// Policies in metadata order, then any others found in runs (first appearance).
  std::vector<std::string> policy_names() const;
};

/// A succeeded job's completion time, submission to success (s); nullopt for any other job.
std::optional<double> job_completion_s(const JobRecord& job);

/// A succeeded job's slowdown: its completion time over its run time alone (ideal_s); nullopt
/// when it did not succeed or its run time alone is unknown or 0. jobs.csv's `slowdown`.
std::optional<double> job_slowdown(const JobRecord& job);

/// The value of `metric` in each of `runs` that has one, in run order (runs without it are
/// skipped, so the result may be shorter than `runs`).
std::vector<double> metric_values(const std::vector<const SeedRun*>& runs,
                                  const std::string& metric);

/// Metadata for a run of scenario `name` read from `path`, whose text has `hash` (scenario_hash,
/// sim/scenario/scenario.hpp: a loaded Scenario's hash).
RunMetadata make_metadata(std::string name, std::string path, std::string hash,
                          std::vector<std::uint64_t> seeds, std::vector<std::string> policies);

/// The JSON document (schema in docs/outputs.md). It includes a derived "summary" (mean, sd and
/// 95% CI per policy and metric, paired differences against the first policy) that from_json()
/// ignores.
nlohmann::json to_json(const RunResult& result);

/// Reads a JSON document written by to_json(). Throws InputError naming `source` and the JSON
/// path of the offending field for a wrong schema, version, type or missing field.
RunResult from_json(const nlohmann::json& doc, const std::string& source);

/// Reads and parses a result file. Throws InputError (file, field) on any problem.
RunResult load_result(const std::string& path);

/// Writes the JSON document of `result` to `out`, the text of `to_json(result).dump(2)` byte for
/// byte, without building the document: the per-job, per-event and per-attempt records and each
/// node's series go out one at a time, so a 100,000-job result does not exist twice in memory.
void write_result(std::ostream& out, const RunResult& result);

/// Writes the JSON document of `result` to `path` (2-space indent; write_result). Throws
/// std::runtime_error when the file cannot be written.
void save_result(const RunResult& result, const std::string& path);

/// Parameters of the Recorder.
struct RecorderOptions {
  /// Record the cluster and node time series (large: consider recording them for one seed).
  bool record_series = true;
  /// With record_series: also every node's and card's series (false: the cluster-level ones).
  bool node_series = true;
  /// With record_series: keep the first sample at or after each multiple of this step (zero:
  /// every sample). Metrics always see every sample.
  Duration series_step{0};
  metrics::StandardCollectorOptions collectors;
};

/// Fills one SeedRun from a run's signals: the metric values (StandardCollectors), job records,
/// events and (optionally) time series. Same contract as a Collector: after attach() it must
/// outlive every emit and must not move.
class Recorder {
 public:
  Recorder(std::string policy, std::uint64_t seed, RecorderOptions options = {});
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// Subscribes to every signal of `signals`.
  void attach(RunSignals& signals);

  void on_job(const JobEvent& event);
  void on_sample(const ClusterSample& sample);
  void on_rate(const JobRate& rate);
  void on_scheduling(const SchedulingEvent& event);

  /// The record of the run that stopped at `end` (>= every signal's time).
  SeedRun finish(TimePoint end) const;

 private:
  struct JobTrack {
    JobRecord record;
    bool submitted = false;
    bool started = false;
  };
  std::string policy_;
  std::uint64_t seed_;
  RecorderOptions options_;
  metrics::StandardCollectors collectors_;
  std::unordered_map<std::string, JobTrack> jobs_;  // by job name (read via job_order_)
  std::vector<std::string> job_order_;
  std::vector<EventRecord> events_;
  AttemptLog attempts_;
  ClusterSeries series_;
  std::vector<double> row_util_;  // reused per node and sample
  std::vector<double> row_nvlink_;
  std::map<std::string, std::size_t, std::less<>> node_index_;
  TimePoint next_kept_{};  // with a series step: the next sample time kept
};

}  // namespace tidesim::app
