#pragma once
/// Scenario files: the cluster, the workload, the policies to compare, the seeds, telemetry, the
/// run's limits and its outputs. The format is documented key by key in docs/scenarios.md.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tidesim/policies/queueing_hints.hpp"
#include "tidesim/policies/registry.hpp"
#include "tidesim/sim/admission/job_policy.hpp"
#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/scenario/cluster_snapshot.hpp"
#include "tidesim/sim/scenario/descheduler_config.hpp"
#include "tidesim/sim/scenario/fabric_config.hpp"
#include "tidesim/sim/scenario/faults.hpp"
#include "tidesim/sim/scenario/prediction_config.hpp"
#include "tidesim/sim/scenario/report_config.hpp"
#include "tidesim/sim/scenario/telemetry_config.hpp"
#include "tidesim/topologies/gpu_node.hpp"
#include "tidesim/workloads/workload_spec.hpp"

namespace tidesim::policies {
struct LoadedProfile;  // policies/loaded_profile.hpp
}  // namespace tidesim::policies

namespace tidesim {

/// A storage device: bandwidth (bytes/s) and base service latency.
struct StorageConfig {
  std::string name;
  double bandwidth = 0.0;
  Duration latency{};
};

/// A group of identical nodes, named `<name>-01`, `<name>-02`, ... (or one node named `name`
/// exactly, for a node read from a trace).
struct NodeGroup {
  std::string name;
  int count = 1;
  /// One node named exactly `name` (count is 1): the nodes of `cluster.nodes_from`.
  bool exact_name = false;
  /// GPU model name (topologies' catalogue), e.g. "A10"; empty for a node without GPUs.
  std::string gpu_model;
  /// GPUs the node must have (the trace's count, checked against the topology); -1: whatever
  /// the topology has.
  int gpus = -1;
  /// A topology preset name or a path to `nvidia-smi topo -m` output (resolved against the
  /// scenario's folder).
  std::string topology;
  /// GPU memory per card; 0 means the GPU model's.
  std::int64_t gpu_memory = 0;
  /// `sharing.mode`: exclusive | time-slicing | fractional (parse_sharing_mode()).
  SharingMode sharing = SharingMode::kExclusive;
  /// Time-slicing replicas per card.
  int replicas = 1;
  /// Time-slicing: `sharing.policy` (distributed | packed), `sharing.tie_break` (lowest-index |
  /// device-plugin), `sharing.slicing` (work-conserving | equal) and `sharing.interference`
  /// ([0, 0.9]); see GpuSharing.
  ReplicaPolicy replica_policy = ReplicaPolicy::kDistributed;
  TieBreak tie_break = TieBreak::kLowestIndex;
  SliceModel slicing = SliceModel::kWorkConserving;
  double interference = 0.0;
  /// Time-slicing: `sharing.declared_memory` and `sharing.isolate_memory` (GpuSharing).
  bool declared_memory = false;
  bool isolate_memory = false;
  /// MIG: `sharing.layout`, the GPU-instance profiles of each card (checked against the model
  /// by mig_layout_error()), and `sharing.strategy` (the device plugin's `mixed`: one
  /// nvidia.com/mig-<profile> resource per profile; `single`: each instance as nvidia.com/gpu).
  std::vector<std::string> mig_layout;
  bool mig_single = false;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  std::map<std::string, std::string> labels;
  std::vector<Taint> taints;
  bool unschedulable = false;
  /// The node's local data device.
  StorageConfig storage;
  /// Network uplink, bytes/s (between nodes): the one-tier network of a cluster without
  /// `cluster.fabric`.
  double uplink_bandwidth = 0.0;
  /// True when the group wrote `uplink` (refused beside a fabric, which gives every node its NICs).
  bool uplink_given = false;
  SourceLocation where;
};

/// The `cluster.nodes_from` section: nodes read from a trace's node list (docs/scenarios.md).
struct NodesFrom {
  /// The node list, resolved against the scenario's folder.
  std::string file;
  /// Only "openb" (columns sn,cpu_milli,memory_mib,gpu,model).
  std::string format = "openb";
  /// Nodes read (they are also appended to ClusterConfig::groups, one group each).
  int nodes = 0;
  SourceLocation where;
};

/// The node name of the `index`-th (1-based) node of group `g`: `<name>-<index, 2 digits>`, or
/// `name` for an exact-name group.
std::string node_name(const NodeGroup& g, int index);

/// The cluster section.
/// The most nodes a cluster may have, per group and in total (the largest shipped cluster, openb,
/// has 1,523).
inline constexpr std::int64_t kMaxNodes = 100'000;
/// The most cluster samples a run may keep: run.until / run.sample_interval (the default 30 days
/// at 10 s is 259,200).
inline constexpr std::int64_t kMaxSamples = 10'000'000;

struct ClusterConfig {
  /// `node_groups` in order, then one single-node group per `nodes_from` row, then one per
  /// `snapshot` Node.
  std::vector<NodeGroup> groups;
  /// Set when the cluster reads nodes from a trace.
  std::optional<NodesFrom> nodes_from;
  /// `cluster.snapshot`: nodes (also in `groups`, one exact-name group each, after `nodes_from`'s)
  /// and the running pods bound to them from the start (sim/scenario/cluster_snapshot.hpp).
  std::optional<ClusterSnapshotConfig> snapshot;
  /// `cluster.fabric`: the network beyond the node (sim/scenario/fabric_config.hpp); without it
  /// each node has its group's `uplink` into one non-blocking switch.
  std::optional<FabricConfig> fabric;
  /// Reads go to a cluster-wide shared device (NFS) when set, instead of the node's own.
  std::optional<StorageConfig> shared_storage;
  /// Full-scale storage await (ms) for the "await_ms" telemetry cap (assumption).
  double max_await_ms = 500.0;
  /// What is legal but hardly meant, each "file:line:column: field: message": a node group's
  /// memory under 1 MiB (a bare number is bytes). check_scenario returns them with its own.
  std::vector<std::string> warnings;
};

/// One policy to compare: a label and the scheduler (a built-in name or a
/// KubeSchedulerConfiguration path, resolved against the scenario's folder).
struct PolicyConfig {
  std::string name;
  /// The scheduler as named in outputs: a built-in's name or the file's path as resolved.
  std::string scheduler;
  /// A job-level policy admitting jobs before their pods reach the scheduler (`admission:`,
  /// sim/model/admission_controller.hpp); nullopt: every job's pods are queued at once.
  std::optional<AdmissionConfig> admission = std::nullopt;
  /// The scheduler's profile, loaded once when the scenario was loaded or `--policy` resolved
  /// (policies::load_profile); copies of the policy share it, and every run builds its scheduler
  /// from it.
  std::shared_ptr<const policies::LoadedProfile> profile = nullptr;

  /// The loaded profile; throws std::logic_error when none was loaded (a program error).
  const policies::LoadedProfile& loaded() const;
};

/// A policy labelled `name` running `scheduler` (a built-in's name, or a file's path relative to
/// the working directory), its profile loaded now.
PolicyConfig make_policy(std::string name, const std::string& scheduler);

/// `run.mode`: how a scenario runs.
enum class RunMode {
  /// The event-driven run (the default).
  kTimeDriven,
  /// The FGD paper's experiment: pods arrive one by one and never leave.
  kFill,
};

/// Where a fill run's random draws come from (`run.randomness`).
enum class FillRandomness {
  /// tidesim's own streams (RandomStream(seed, "fill/shuffle" | "fill/tune" | "fill/ranks" |
  /// "fill/random")).
  kTidesim,
  /// Go's math/rand seeded with the seed, drawn in the FGD simulator's order (GoRand), so that a
  /// run reproduces the repository's per-seed curves.
  kGoMathRand,
};

/// "time-driven" or "fill": the name a scenario writes.
const char* to_string(RunMode mode);
/// "tidesim" or "go-math-rand".
const char* to_string(FillRandomness r);

/// Limits and timings of a run.
struct RunConfig {
  /// Stop the run at this time even if jobs remain (they are reported as unfinished).
  Duration until = std::chrono::hours(24 * 30);
  /// Time one scheduling cycle takes (assumption: 10 ms).
  Duration cycle_time = std::chrono::milliseconds(10);
  /// Time from bind to the container running (image pull, start; assumption: 0 s).
  Duration pod_startup = Duration::zero();
  /// Period of the true-state samples the metric collectors see.
  Duration sample_interval = std::chrono::seconds(10);
  /// `run.ftf_contention`: the 1/N share of finish-time fairness, "themis" (the mean number of
  /// jobs present) or "all-jobs" (every job of the run, as Shockwave's artifact computes it;
  /// sim/metrics/finish_time_fairness.hpp).
  bool ftf_all_jobs = false;
  /// `run.job_window: {first, last}`: the job metrics count only the jobs submitted first to
  /// last (0-based, in submission order: Gavel's job ids), and the run ends when they have all
  /// ended (Gavel's `-s 4000 -e 5000` is first 4000, last 4999).
  std::optional<std::pair<long, long>> job_window;
  /// `run.mode`: "time-driven" (the default: the event-driven run) or "fill": the FGD paper's
  /// experiment, pods arrive one by one and never leave (docs/fgd.md;
  /// sim/experiments/fill_experiment.hpp).
  RunMode mode = RunMode::kTimeDriven;
  /// Fill mode: tune the workload to this multiple of the GPU capacity (0: no tuning).
  double tune = 0.0;
  /// Where `run.tune` was written (file only when it was not), for errors about it.
  SourceLocation tune_where;
  /// Fill mode (`run.randomness`): "tidesim" (the project's streams) or "go-math-rand" (Go's
  /// generator in the FGD simulator's draw order).
  FillRandomness randomness = FillRandomness::kTidesim;
  /// `run.preemption.enabled`: run the profile's PostFilter (DefaultPreemption) when a pod fits
  /// no node (opt-in; docs/job-scheduling.md).
  bool preemption = false;
  /// `run.preemption.grace_period`: a victim's terminationGracePeriodSeconds, from its deletion
  /// to its containers' end (Kubernetes' default 30 s, core/v1
  /// DefaultTerminationGracePeriodSeconds).
  Duration termination_grace_period = std::chrono::seconds(30);
  /// `run.gang_capacity_gate`: an all-or-nothing gang is not tried while the cluster's free GPUs
  /// cannot hold it (SchedulingLoop::set_gang_capacity_gate; opt-in: it changes results;
  /// docs/job-scheduling.md, "All-or-nothing mode").
  bool gang_capacity_gate = false;
  /// `run.queueing_hints`: "kubernetes" (every deletion of a bound pod moves every unschedulable
  /// pod back, as kube-scheduler does) or "precise" (only the pods the change may help;
  /// SchedulingLoop::set_queueing_hints; opt-in: it changes results; docs/policies.md,
  /// "Queueing hints").
  policies::QueueingHints queueing_hints = policies::QueueingHints::kKubernetes;
};

/// A published figure to print beside the results (the seed's table).
struct ReferenceFigure {
  std::string metric;
  std::map<std::string, double> by_policy;
};

/// A whole scenario.
struct Scenario {
  std::string path;
  std::string folder;
  std::string name;
  std::string description;
  /// scenario_hash of the file's text, as read (before any `--set` edit).
  std::string hash;
  ClusterConfig cluster;
  /// The `workload:` section (docs/scenario-workload.md).
  workloads::WorkloadSpec workload;
  std::vector<PolicyConfig> policies;
  /// The plugin registry the scenario's profiles were loaded with (load_scenario's); `--policy`
  /// resolution (tools/lib/policy_select.hpp) loads its profiles with it too. Null: the default.
  policies::RegistryPtr registry;
  /// The job-level policy registry its `admission:` entries were read with (load_scenario's):
  /// each entry keeps it (AdmissionConfig::registry) and builds its policy from it.
  JobPolicyRegistryPtr job_policies;
  std::vector<std::uint64_t> seeds;
  TelemetryConfig telemetry;
  /// The `prediction:` section (off when absent).
  PredictionConfig prediction;
  /// The `faults:` section (off when absent).
  FaultsConfig faults;
  /// The `descheduler:` section (off when absent).
  DeschedulerConfig descheduler;
  RunConfig run;
  std::vector<ReferenceFigure> reference;
  std::string reference_source;
  /// The `report:` section: the study's headline metrics (empty: the default set).
  ReportConfig report;
};

/// A scenario text's identity: "fnv1a64:" + 16 lower-case hex digits of its 64-bit FNV-1a hash
/// (stable_hash). The one hash of a scenario: Scenario::hash, and a result's
/// metadata.scenario.hash (docs/outputs.md), which `check` compares.
std::string scenario_hash(std::string_view text);

/// Reads and validates a scenario, its policies' profiles loaded with the default plugin
/// registry. Throws InputError naming file, line, column and field.
Scenario load_scenario(const std::string& path);

/// The same, with `edit` (when set) applied to the file's YAML document before it is read (the
/// `--set` overrides of sim/scenario/scenario_override.hpp), the profiles loaded with
/// `registry`'s plugins (null: policies::default_registry()) and the job-level policies looked
/// up in `job_policies` (null: default_job_policy_registry()).
Scenario load_scenario(const std::string& path, const std::function<void(ConfigNode&)>& edit,
                       policies::RegistryPtr registry = nullptr,
                       JobPolicyRegistryPtr job_policies = nullptr);

/// The built-in default scenario's path, relative to the source tree:
/// scenarios/seed-benchmark.yaml.
std::string default_scenario_path();

}  // namespace tidesim
