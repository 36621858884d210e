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
#include "tidesim/policies/queueing_hint_map.hpp"
#include "tidesim/policies/registry.hpp"
#include "tidesim/policies/schedule_result.hpp"
#include "tidesim/sim/engine/random.hpp"

namespace tidesim::policies {

struct LoadedProfile;  // policies/loaded_profile.hpp

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
  /// The hints the profile's plugins register (Plugin::events_to_register()), by which the queue
  /// moves the pods they rejected; ScheduleResult::rejectors holds bits of it.
  const QueueingHintMap& queueing_hints() const { return hints_.map; }
  /// Queue settings: order from the QueueSort plugin, back-off from the config.
  QueueOptions queue_options() const { return plugins_.queue_options(); }
  /// Enabled plugins at `point` ("filter", "score", ...) in order; score plugins with weights.
  std::vector<std::pair<std::string, std::int64_t>> plugins_at(const std::string& point) const {
    return plugins_.at(point);
  }
  /// Its plugins (e.g. plugins().percentage(): the percentageOfNodesToScore in effect, 0 =
  /// adaptive; plugins().pod_group_cycle(), plugins().placement()).
  const ProfilePlugins& plugins() const { return plugins_; }
  /// What a cycle may leave behind for later cycles: the round-robin start of node sampling and
  /// the number of tie-breaks drawn from the scheduler's stream. A cycle that leaves both as they
  /// were changes nothing a later cycle sees (the scheduling loop's fast fail of gangs uses it).
  std::pair<int, std::uint64_t> selection_state() const {
    return {selection_.next_start, selection_.tie_breaks};
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
  // `rejectors` receives the bits of the plugins whose screens it holds.
  FitScreen fit_screen(const PodSpec& pod, Rejectors& rejectors) const;
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
  // The plugins' queueing hints and the bit of each Filter plugin (in filter() order) in them.
  struct Hints {
    QueueingHintMap map;
    std::vector<Rejectors> filter_bits;
  } hints_;
  // The time of the PostFilter call whose dry runs fits() serves.
  TimePoint dry_run_now_{};
  // What a cycle records beside its decision (set_record_details, set_record_reasons).
  struct Recording {
    bool details = false;
    bool reasons = true;
  } record_;
  // What the selection leaves for later cycles (selection_state): the round-robin start of node
  // sampling and the tie-breaks drawn.
  struct Selection {
    int next_start = 0;
    std::uint64_t tie_breaks = 0;
  } selection_;
  std::uint64_t cycle_ = 0;
  RandomStream random_;
  // Reused buffers.
  std::vector<int> feasible_;
  // The nodes a pinned pod's names screen lets through (the Filter pass's short path).
  NodeNameIndex named_nodes_;
  // The Filter and Score plugins a PreFilter or PreScore Skip leaves out this cycle.
  struct Skips {
    std::vector<char> filter;
    std::vector<char> score;
  } skip_;
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
