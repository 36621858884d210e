#pragma once
/// A scheduler profile instantiated as a framework (pkg/scheduler/framework/runtime/framework.go)
/// and the scheduling cycle (pkg/scheduler/schedule_one.go): PreFilter -> Filter (node sampling,
/// round-robin start) -> PreScore -> Score -> NormalizeScore -> weights -> tie-break from the
/// scheduler's own random stream. PostFilter (post_filter(): DefaultPreemption) and Permit
/// (permit(): Coscheduling) are separate calls the scheduling loop makes when a run has
/// preemption or gangs (policies/scheduling_loop.hpp, docs/job-scheduling.md).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tidesim/policies/config.hpp"
#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/node_name_index.hpp"
#include "tidesim/policies/profile_plugins.hpp"
#include "tidesim/policies/queue.hpp"
#include "tidesim/policies/registry.hpp"
#include "tidesim/sim/engine/random.hpp"

namespace tidesim::policies {

struct LoadedProfile;  // policies/loaded_profile.hpp

/// One score plugin's contribution on one node (for explain).
struct PluginScore {
  std::string plugin;
  /// Score() result.
  std::int64_t raw = 0;
  /// After NormalizeScore (== raw when the plugin has none).
  std::int64_t normalized = 0;
  /// The plugin's weight in the profile.
  std::int64_t weight = 0;
  /// normalized * weight.
  std::int64_t weighted = 0;
  /// The plugin's own note (e.g. the load vector), may be empty.
  std::string note;
};

/// What the cycle did with one node (for explain).
struct NodeDetail {
  std::string node;
  /// False when node sampling stopped before reaching this node.
  bool evaluated = false;
  bool feasible = false;
  /// The first Filter plugin that rejected the node, and its reasons.
  std::string failed_plugin;
  std::vector<std::string> reasons;
  /// Notes of filter plugins on this node (e.g. LoadAwareFilter's load vector).
  std::vector<std::string> notes;
  /// True when scores were computed (two or more feasible nodes).
  bool scored = false;
  std::vector<PluginScore> scores;
  /// Sum of the weighted scores.
  std::int64_t total = 0;
};

/// The outcome of one scheduling cycle.
struct ScheduleResult {
  /// Index into ClusterView::nodes of the chosen node; empty when the pod is unschedulable or the
  /// cycle failed with an error.
  std::optional<int> node;
  /// Kubernetes' FitError text when no node fits ("0/8 nodes are available: 3 Insufficient
  /// nvidia.com/gpu, 5 node(s) had untolerated taint {gpu: busy}."), or the error.
  std::string reason;
  /// True when a plugin returned Error (the pod goes to back-off, not to unschedulable).
  bool error = false;
  /// True when a PreFilter plugin rejected the pod as UnschedulableAndUnresolvable: preemption
  /// cannot help it (every node is unresolvable for DefaultPreemption).
  bool unresolvable = false;
  /// True when a plugin registered for metrics events (Plugin::events_to_register() with
  /// kMetricsChanged) rejected the pod at
  /// PreFilter or on some node at Filter: a metrics refresh may make it schedulable (the queue's
  /// metrics event, SchedulingQueue::on_metrics_event).
  bool rejected_by_metrics = false;
  /// Time the cycle took (slow metrics queries); the driver binds after it.
  Duration latency = Duration::zero();
  /// The seed's fallback stage (digest 4.3): 0 normal, 1 remaining-GPU scoring, 2 golden pool.
  int fallback_stage = 0;
  /// Stage 2: the nodeSelector the pod was pinned to (the golden node pool).
  std::optional<LabelSelector> node_selector_pin;
  /// Alerts raised in the cycle (stage-2 fallback).
  std::vector<std::string> alerts;
  /// Nodes the filters ran on, and how many passed.
  int evaluated_nodes = 0;
  int feasible_nodes = 0;
  /// Per-node details, in cluster order; filled only when details are recorded.
  std::vector<NodeDetail> details;
  /// The cards of `node` the profile's CardChooserPlugin chose (empty: no preference): the
  /// scheduling loop hands them to the binder with the node (BindTarget::bind, reserve).
  std::vector<int> cards;
};

/// Options of make_scheduler.
struct SchedulerOptions {
  /// The profile (schedulerName) to use from a config file with several; empty: the first.
  std::string profile;
};

/// One scheduler profile, ready to run cycles. Not thread-safe (plugins keep cycle state).
class Scheduler final : public FilterRunner {
 public:
  /// Builds the framework for `profile` of `config`; throws InputError naming the profile,
  /// plugin and field (unknown plugin, plugin at a point it does not implement, missing weight,
  /// not exactly one queueSort plugin, no bind plugin, bad args).
  /// Its plugins: ProfilePlugins (policies/profile_plugins.hpp). Not copyable (it owns them).
  Scheduler(const SchedulerConfig& config, const ProfileConfig& profile, std::uint64_t seed,
            const Registry& registry = builtin_registry());

  /// Runs one scheduling cycle for `pod` against `cluster` at time `now`; `metrics` may be null.
  /// `group`: the pod's PodGroup (Coscheduling's PreFilter reads it); `nominated`: the node an
  /// earlier preemption nominated for the pod, tried first (evaluateNominatedNode).
  ScheduleResult schedule_one(const PodSpec& pod, const ClusterView& cluster,
                              const MetricsSource* metrics, TimePoint now,
                              const PodGroupStatus* group = nullptr,
                              std::optional<int> nominated = std::nullopt);

  /// PostFilter (RunPostFilterPlugins) for a pod no node fits: the first plugin that nominates a
  /// node wins (DefaultPreemption: the node and its victims). Empty when none helps.
  PostFilterResult post_filter(const PodSpec& pod, const ClusterView& cluster, TimePoint now);
  /// The PodGroup's PostFilter for a member of `group` that fit no node: Coscheduling's (the
  /// profile's instance, or the one every profile gets for gangs), which may ask for the group's
  /// waiting pods to be rejected (PostFilterResult::reject_waiting).
  PostFilterResult group_post_filter(const PodSpec& pod, const ClusterView& cluster,
                                     const PodGroupStatus& group, TimePoint now);
  /// Permit (RunPermitPlugins) for `pod` reserved on `node`: Success, a rejection, or Wait with
  /// `timeout` (the shortest of the waiting plugins').
  Status permit(const PodSpec& pod, int node, const ClusterView& cluster,
                const PodGroupStatus* group, TimePoint now, Duration& timeout);
  /// FilterRunner: every PreFilter and Filter plugin on `node` of `view`.
  bool fits(const PodSpec& pod, const ClusterView& view, int node) override;

  /// Record per-node details in every ScheduleResult (explain); off by default (slower).
  void set_record_details(bool on) { record_.details = on; }
  /// Build ScheduleResult::reason (the FitError text, counted per filter reason) for pods that do
  /// not fit; on by default. The scheduling loop of a run turns it off: nothing there prints it,
  /// and counting reason strings per rejected node is most of an unschedulable cycle's cost.
  /// Whether a pod fits does not depend on it.
  void set_record_reasons(bool on) { record_.reasons = on; }

  /// True when a plugin of the profile reads node metrics (Plugin::reads_metrics()).
  bool reads_metrics() const { return plugins_.reads_metrics(); }
  /// True when a plugin of the profile judges forecasts (Plugin::reads_forecasts()).
  bool reads_forecasts() const { return plugins_.reads_forecasts(); }
  /// True when a plugin of the profile wants the run's whole workload (Plugin::wants_workload()):
  /// only then does a run build the list of its pods for observe_workload().
  bool wants_workload() const { return plugins_.wants_workload(); }
  /// Shows the run's pods to the plugins that want them (Plugin::wants_workload()).
  void observe_workload(std::span<const PodSpec> pods) { plugins_.observe_workload(pods); }
  /// The profile's schedulerName.
  const std::string& name() const { return plugins_.name(); }
  /// Queue settings: order from the QueueSort plugin, back-off from the config.
  QueueOptions queue_options() const { return plugins_.queue_options(); }
  /// Enabled plugins at `point` ("filter", "score", ...) in order; score plugins with weights.
  std::vector<std::pair<std::string, std::int64_t>> plugins_at(const std::string& point) const {
    return plugins_.at(point);
  }
  /// The percentageOfNodesToScore in effect (0 = adaptive).
  int percentage_of_nodes_to_score() const { return plugins_.percentage(); }
  /// What a cycle may leave behind for later cycles: the round-robin start of node sampling and
  /// the number of tie-breaks drawn from the scheduler's stream. A cycle that leaves both as they
  /// were changes nothing a later cycle sees (the scheduling loop's fast fail of gangs uses it).
  std::pair<int, std::uint64_t> selection_state() const {
    return {next_start_node_index_, tie_breaks_};
  }

 private:
  // The cycle (scheduler.cpp), as schedule_one.go divides it. schedule_pod (schedulePod): the
  // node for the pod, or why none, into `result`.
  void schedule_pod(CycleContext& ctx, const PodSpec& pod, const PodGroupStatus* group,
                    std::optional<int> nominated, ScheduleResult& result);
  // PreFilter, the gang's PreFilter, the nominated node, then the Filter pass
  // (findNodesThatFitPod). True when the Filter pass ran: feasible_ holds the nodes that passed,
  // `histogram` the rejected nodes' reasons (when recorded). False when the cycle ended before
  // (a PreFilter rejection, an error, or the nominated node taken): `result` says which.
  bool find_nodes_that_fit_pod(CycleContext& ctx, const PodSpec& pod, const PodGroupStatus* group,
                               std::optional<int> nominated, std::map<std::string, int>& histogram,
                               ScheduleResult& result);
  // Every PreFilter plugin (RunPreFilterPlugins), marking the Filter plugins to skip; false when
  // one rejects the pod or fails, with why in `result` when it is given.
  bool run_pre_filter_plugins(CycleContext& ctx, const PodSpec& pod, ScheduleResult* result);
  // The Filter plugins over the nodes from the round-robin start until enough pass
  // (findNodesThatPassFilters); false on a plugin error (in `result`).
  bool find_nodes_that_pass_filters(CycleContext& ctx, const PodSpec& pod,
                                    std::map<std::string, int>& histogram, ScheduleResult& result);
  // The first active fit_screen() of the Filter plugins not skipped this cycle when it and every
  // plugin before it are plain_filter() and read no metrics: a node it rejects is rejected by one
  // of them, whichever comes first, and leaving them uncalled changes nothing else (inactive
  // otherwise).
  FitScreen fit_screen(const PodSpec& pod) const;
  // The Filter plugins on node `i` (the body of the Filter pass): a passing node joins
  // feasible_, a rejected one adds its reasons; false on a plugin error (in `result`).
  bool filter_node(CycleContext& ctx, const PodSpec& pod, int i, Status& failed,
                   std::map<std::string, int>& histogram, ScheduleResult& result);
  // PreScore, Score, NormalizeScore and weights into totals_ (prioritizeNodes); false on an
  // error (in `result`).
  bool prioritize_nodes(CycleContext& ctx, const PodSpec& pod, ScheduleResult& result);
  // The index into feasible_ of the highest total, ties broken at random (selectHost).
  std::size_t select_host();
  // What every cycle copies from ctx into its result; the card choice of the chosen node.
  void finish_cycle(CycleContext& ctx, const PodSpec& pod, ScheduleResult& result);
  // Every Filter plugin not skipped this cycle passes `node`.
  bool passes_filters(CycleContext& ctx, const PodSpec& pod, int node);
  ProfilePlugins plugins_;
  // The time of the PostFilter call whose dry runs fits() serves.
  TimePoint dry_run_now_{};
  // What a cycle records beside its decision (set_record_details, set_record_reasons).
  struct Recording {
    bool details = false;
    bool reasons = true;
  } record_;
  int next_start_node_index_ = 0;
  std::uint64_t tie_breaks_ = 0;
  std::uint64_t cycle_ = 0;
  RandomStream random_;
  // Reused buffers.
  std::vector<int> feasible_;
  // The nodes a pinned pod's names screen lets through (the Filter pass's short path).
  NodeNameIndex named_nodes_;
  std::vector<char> skip_filter_;
  std::vector<char> skip_score_;
  std::vector<std::int64_t> totals_;
  std::vector<std::int64_t> scores_;
};

// The built-in schedulers and make_scheduler: policies/builtin_profiles.cpp.

/// Names of the built-in schedulers (docs/policies.md, "Built-in schedulers").
std::vector<std::string> builtin_scheduler_names();
/// The KubeSchedulerConfiguration text of a built-in scheduler (nullopt for other names): the
/// text of its scenarios/schedulers/NAME.yaml where it has one (embedded_profile_yaml()).
std::optional<std::string> builtin_scheduler_config(const std::string& name);

/// A scheduler of a loaded profile (policies/loaded_profile.hpp): its first profile, or the one
/// options.profile names. `seed` seeds the tie-break stream (RandomStream(seed, "scheduler/" +
/// profile name)). Reads no file: a run builds every scheduler of a policy from the one load.
std::unique_ptr<Scheduler> make_scheduler(const LoadedProfile& loaded, std::uint64_t seed,
                                          const SchedulerOptions& options = {});
/// The same for a built-in scheduler's name or a KubeSchedulerConfiguration file's path, loaded
/// now (load_profile, for tests and benchmarks; a run loads its profiles once).
std::unique_ptr<Scheduler> make_scheduler(const std::string& name_or_path, std::uint64_t seed,
                                          const SchedulerOptions& options = {});

}  // namespace tidesim::policies
