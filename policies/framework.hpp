#pragma once
/// The scheduling framework's extension points, mirroring Kubernetes'
/// (pkg/scheduler/framework/interface.go): a plugin implements only the interfaces of the points it
/// needs; the framework discovers them and a concept checks conformance at compile time.
///
/// A plugin instance belongs to one Scheduler and sees one scheduling cycle at a time, so a plugin
/// keeps its cycle state in its own members (written by PreFilter/PreScore, read by Filter/Score)
/// instead of Kubernetes' CycleState map. A Scheduler is therefore not thread-safe.
#include <concepts>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/api/cluster_view.hpp"
#include "tidesim/sim/api/telemetry.hpp"
#include "tidesim/sim/engine/time.hpp"

namespace tidesim::policies {

/// framework.MinNodeScore / MaxNodeScore (pkg/scheduler/framework/interface.go).
inline constexpr std::int64_t kMinNodeScore = 0;
inline constexpr std::int64_t kMaxNodeScore = 100;

/// Status codes (framework.Code). Unschedulable may be resolved by preemption;
/// UnschedulableAndUnresolvable may not; Error aborts the cycle; Skip (PreFilter/PreScore only)
/// skips the plugin's Filter/Score for this cycle; Wait (Permit only) holds the reserved pod at
/// Permit until it is allowed, rejected or its timeout passes.
enum class Code { kSuccess, kUnschedulable, kUnschedulableAndUnresolvable, kError, kSkip, kWait };

/// The scheduler-plugins PodGroup label (pkg/apis/scheduling/v1alpha1: PodGroupLabel): a pod
/// carrying it belongs to the named PodGroup of its namespace.
inline constexpr const char* kPodGroupLabel = "scheduling.x-k8s.io/pod-group";

/// What the Coscheduling plugin knows of the pod's PodGroup in this cycle (the PodGroup object
/// and the scheduler cache's count of its pods that are assigned: reserved and waiting at Permit,
/// or bound).
struct PodGroupStatus {
  std::string name;
  /// spec.minMember.
  int min_member = 1;
  /// spec.scheduleTimeoutSeconds: how long a pod may wait at Permit.
  Duration schedule_timeout = std::chrono::seconds(60);
  /// spec.minResources (here: GPUs, device-plugin units) the whole group needs; 0: not set.
  std::int64_t min_gpus = 0;
  /// GPUs held by the group's assigned pods (they count as free for the minResources check).
  std::int64_t assigned_gpus = 0;
  /// Pods of the group that exist (created and not deleted).
  int members = 0;
  /// Pods of the group assigned (waiting at Permit or bound), not counting the pod in the cycle.
  int assigned = 0;
  /// KEP-5732: the node label whose one value all pods of the group share ("" for none).
  std::string topology_key;
  /// In a pod group cycle (policies/pod_group_cycle.hpp): the nodes of the placement being
  /// evaluated, in index order (upstream's snapshot restricted by AssumePlacement); null when
  /// the cycle evaluates no placement, and outside a pod group cycle.
  const std::vector<int>* placement = nullptr;
};

/// The result of one plugin call (framework.Status). `reasons` are Kubernetes' messages, e.g.
/// "Insufficient nvidia.com/gpu"; a Filter plugin may leave them out when the cycle does not record
/// them (CycleContext::record_reasons, reject()). `plugin` is filled in by the framework (Permit):
/// the plugin's own name(), valid while its Scheduler lives. Every filter call returns a Status by
/// value, so it stays small (48 bytes): a success or a bare code neither allocates nor frees.
struct Status {
  Code code = Code::kSuccess;
  std::vector<std::string> reasons;
  std::string_view plugin;

  bool ok() const { return code == Code::kSuccess; }
  /// A success.
  static Status success() { return {}; }
  /// A failure with one reason.
  static Status make(Code code, std::string reason) {
    return Status{code, {std::move(reason)}, {}};
  }
  /// All reasons joined with ", ".
  std::string message() const;
};

/// How the scheduling queue orders pods (the profile's QueueSort plugin).
enum class QueueOrder {
  kPrioritySort,  ///< PrioritySort: higher .spec.priority first, then earlier queue timestamp.
  kFifo,          ///< tidesim's FIFOSort: queue timestamp only (the first-fit baseline).
};

/// What one scheduling cycle sees and what plugins report back to the framework.
struct CycleContext {
  /// Exact allocation state (API server + scheduler cache).
  const ClusterView& cluster;
  /// Node metrics (load); null when the run has no telemetry.
  const MetricsSource* metrics = nullptr;
  /// Simulated time of the cycle.
  TimePoint now{};
  /// A number unique to this cycle within its Scheduler (lets a plugin that has no PreFilter or
  /// PreScore notice a new cycle).
  std::uint64_t cycle = 0;
  /// Time the cycle spent waiting (e.g. on slow metrics queries); plugins add to it.
  Duration latency = Duration::zero();
  /// The seed's two-stage fallback (digest 4.3): 0 normal, 1 remaining-GPU scoring, 2 golden pool.
  int fallback_stage = 0;
  /// True once a load-aware plugin has decided `fallback_stage` for this cycle.
  bool fallback_decided = false;
  /// Stage 2: the nodeSelector the pod is pinned to (the golden node pool).
  std::optional<LabelSelector> node_selector_pin;
  /// Alerts raised during the cycle (stage-2 fallback), for the driver to count or log.
  std::vector<std::string> alerts;
  /// State plugins share within the cycle, by key (Kubernetes' CycleState). The pointee belongs
  /// to the writing plugin and stays valid until the cycle ends.
  std::map<std::string, const void*, std::less<>> shared;
  /// The pod's PodGroup (Coscheduling reads it); null for a pod outside any group.
  const PodGroupStatus* pod_group = nullptr;
  /// False when nobody reads the reasons of this cycle's Filter rejections (the scheduling loop of
  /// a run, PostFilter's dry runs, a nominated node's check): a Filter plugin may then return a
  /// bare code (reject()) instead of building its message for every rejected node. Whether a node
  /// passes must not depend on it.
  bool record_reasons = true;
};

/// A Filter rejection with code `code`: with `reason` when the cycle records reasons
/// (CycleContext::record_reasons), a bare code without reasons otherwise. `reason` is a string, or
/// a callable returning one, called only when the reason is recorded (for formatted messages).
template <class Reason>
Status reject(const CycleContext& ctx, Code code, Reason&& reason) {
  if (!ctx.record_reasons) {
    return Status{code, {}, {}};
  }
  if constexpr (std::is_invocable_v<Reason>) {
    return Status::make(code, std::string(std::forward<Reason>(reason)()));
  } else {
    return Status::make(code, std::string(std::forward<Reason>(reason)));
  }
}

/// What a PostFilter plugin may ask of the framework (framework.Handle: RunFilterPlugins and
/// friends): does `pod` pass every PreFilter and Filter plugin of the profile on node `node` of
/// `view` (a copy of the cycle's ClusterView with some pods removed).
class FilterRunner {
 public:
  virtual ~FilterRunner() = default;
  virtual bool fits(const PodSpec& pod, const ClusterView& view, int node) = 0;
};

/// A PostFilter plugin's answer (framework.PostFilterResult + the preemption it started): the
/// node nominated for the pod (nominatedNodeName) and the pods to delete there.
struct PostFilterResult {
  std::optional<int> nominated_node;
  std::vector<std::shared_ptr<const PodSpec>> victims;
  /// The pod's PodGroup gives up for now: its pods waiting at Permit are to be rejected
  /// (Coscheduling's PostFilter; the scheduling loop holds the waiting pods and rejects them).
  bool reject_waiting = false;
};

/// The cluster events a plugin registers for (kube-scheduler's EventsToRegister, the events of
/// its ClusterEventWithHint list): after such an event a pod the plugin rejected may fit, so the
/// scheduling queue moves it back to be tried (ClusterEventWithHint, QueueingHintMap).
enum ClusterEvent : unsigned {
  /// A pod bound to a node was deleted, or a node came back (resources freed; AssignedPod/Delete,
  /// Node/Update in kube-scheduler). An unschedulable pod moves on it when no plugin rejected it or
  /// a plugin that did registered for it and its hint says kQueue (every built-in plugin does,
  /// with no hint); SchedulingLoop::QueueingHints may keep more pods in place with precise hints.
  kClusterChanged = 1U << 0,
  /// A scrape changed the metrics some node reports (tidesim's telemetry; no Kubernetes object
  /// changes): only the pods a plugin registered for it rejected move.
  kMetricsChanged = 1U << 1,
};
/// How many ClusterEvent values there are.
inline constexpr int kClusterEventCount = 2;

/// A queueing hint's answer (fwk.QueueingHint): whether the event may make a pod the plugin
/// rejected schedulable.
enum class QueueingHint : std::uint8_t {
  kQueueSkip,  ///< the event does not help the pod: it stays where it is (QueueSkip)
  kQueue,      ///< the pod may fit now: it moves back to be tried (Queue)
};

/// A cluster event as a queueing hint sees it (kube-scheduler passes the old and new object).
struct ClusterEventInfo {
  ClusterEvent event = kClusterChanged;
  /// The nodes (ClusterView::nodes indices) the change touched, when known (a deletion of a
  /// bound pod); null: unknown, anywhere.
  const std::set<int>* nodes = nullptr;
};

/// QueueingHintFn (pkg/scheduler/framework/types.go): given a pod the plugin rejected and an event
/// it registered for, whether the event may make the pod schedulable.
using QueueingHintFn = std::function<QueueingHint(const PodSpec& pod, const ClusterEventInfo&)>;

/// The plugins that rejected a pod (QueuedPodInfo.UnschedulablePlugins), one bit per plugin of
/// its profile (QueueingHintMap::bit).
using Rejectors = std::uint64_t;

/// ClusterEventWithHint: an event a plugin registers for, with its hint. An empty hint answers
/// kQueue for every pod (kube-scheduler's nil QueueingHintFn).
struct ClusterEventWithHint {
  ClusterEvent event = kClusterChanged;
  QueueingHintFn hint;
};

/// Every plugin has a name (the one used in KubeSchedulerConfiguration).
class Plugin {
 public:
  virtual ~Plugin() = default;
  /// The registry name, e.g. "NodeResourcesFit".
  virtual std::string_view name() const = 0;
  /// A human note on the last cycle's view of node `node_index` (e.g. the load vector), for
  /// `tidesim explain`; empty by default.
  virtual std::string explain_node(int /*node_index*/) const { return {}; }
  /// True for the named no-op plugins (volumes, ports, images): the framework lists them but
  /// skips their calls.
  virtual bool no_op() const { return false; }
  /// True for a plugin that reads node metrics (CycleContext::metrics). A run builds and drives
  /// the telemetry pipeline only for a profile with such a plugin.
  virtual bool reads_metrics() const { return false; }
  /// EventsToRegister (EnqueueExtensions): the events after which a pod this plugin rejected (at
  /// PreFilter, or on some node at Filter) may be worth trying again, each with its
  /// QueueingHintFn (SchedulingQueue asks them through QueueingHintMap). Default: changes of the
  /// cluster's state, always kQueue; a plugin that rejects by node metrics adds kMetricsChanged.
  virtual std::vector<ClusterEventWithHint> events_to_register() const {
    return {ClusterEventWithHint{.event = kClusterChanged, .hint = {}}};
  }
  /// True when the plugin judges forecasts of node metrics (MetricsSource::forecast), which only a
  /// scenario with a prediction: section provides (docs/prediction.md).
  virtual bool reads_forecasts() const { return false; }
  /// True for a plugin that wants to see the run's whole workload before the first cycle (FGD's
  /// typical pods): the run calls observe_workload() with every pod it will submit.
  virtual bool wants_workload() const { return false; }
  /// The run's pods (only called when wants_workload()).
  virtual void observe_workload(std::span<const PodSpec> /*pods*/) {}
  /// True for a plugin that has the profile schedule each gang of a Workload pod group in one
  /// pod group cycle (KEP-4671 at v1.36; policies/pod_group_cycle.hpp) instead of pod by pod.
  virtual bool pod_group_cycle() const { return false; }
};

/// QueueSort: decides the queue order (exactly one per profile).
class QueueSortPlugin : public virtual Plugin {
 public:
  /// The order this plugin imposes on the scheduling queue.
  virtual QueueOrder order() const = 0;
};

/// PreFilter: runs once per cycle before Filter; may reject the pod outright or return Skip to
/// skip this plugin's Filter.
class PreFilterPlugin : public virtual Plugin {
 public:
  /// Prepares cycle state for `pod`.
  virtual Status pre_filter(CycleContext& ctx, const PodSpec& pod) = 0;
};

/// fit.go's fitsRequest for one resource: a request of `request` (> 0) does not fit a node with
/// `allocatable` of it of which `requested` is held.
inline bool short_of(std::int64_t request, std::int64_t allocatable, std::int64_t requested) {
  return request > 0 && request > allocatable - requested;
}

/// A rejection a Filter plugin is sure to make, checked on the node's allocation alone: the node
/// is short of the CPU, memory or GPUs given (0: not checked). An index, not a rule of its own:
/// the plugin's filter() applies short_of() to the same amounts.
struct FitScreen {
  bool active = false;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t gpus = 0;
  /// When set (it points into the pod's spec, valid for the cycle): the only node names the
  /// filter can accept (a required node affinity on `metadata.name`); every other node is
  /// rejected. Independent of `active`, which covers the amounts.
  const std::vector<std::string>* names = nullptr;
  /// True when `node` is short of one of the amounts.
  bool rejects(const NodeInfo& node) const {
    const Resources& a = node.node.allocatable;
    const Resources& q = node.requested;
    return active &&
           (short_of(gpus, a.gpus, q.gpus) || short_of(cpu_milli, a.cpu_milli, q.cpu_milli) ||
            short_of(memory_bytes, a.memory_bytes, q.memory_bytes));
  }
};

/// Filter: may node `node_index` run `pod`? Must be cheap: it runs for every evaluated node.
class FilterPlugin : public virtual Plugin {
 public:
  /// Success, or Unschedulable(AndUnresolvable) with Kubernetes' reason, or Error.
  virtual Status filter(CycleContext& ctx, const PodSpec& pod, int node_index) = 0;
  /// True when filter() does nothing but answer (it keeps no state, reads no metrics) and never
  /// returns Error. The Filter pass of a cycle that records no reasons may then leave it uncalled
  /// on a node that a later plugin's fit_screen() rejects: the node is rejected either way, and
  /// nothing else of the cycle depends on which plugin rejected it. False by default.
  virtual bool plain_filter() const { return false; }
  /// After this cycle's PreFilter: the nodes filter() is sure to reject as Unschedulable for
  /// `pod`, by their allocation alone (inactive by default). The Filter pass skips such nodes
  /// without calling the filters when every filter before this one is plain_filter().
  virtual FitScreen fit_screen(const PodSpec& /*pod*/) const { return {}; }
};

/// PostFilter: runs when no node passed Filter (DefaultPreemption's point). The default finds
/// nothing (a no-op PostFilter).
class PostFilterPlugin : public virtual Plugin {
 public:
  /// `filters` runs the profile's filters on a modified view. An empty result: no help.
  virtual PostFilterResult post_filter(CycleContext& /*ctx*/, const PodSpec& /*pod*/,
                                       FilterRunner& /*filters*/) {
    return {};
  }
};

/// PreScore: runs once per cycle before Score over the feasible nodes; Skip skips this plugin's
/// Score and NormalizeScore.
class PreScorePlugin : public virtual Plugin {
 public:
  /// Prepares scoring state; `feasible` are node indices into ctx.cluster.nodes.
  virtual Status pre_score(CycleContext& ctx, const PodSpec& pod,
                           std::span<const int> feasible) = 0;
};

/// Score (+ optional NormalizeScore). After normalisation every score must lie in
/// [kMinNodeScore, kMaxNodeScore]; the framework multiplies it by the plugin's weight.
class ScorePlugin : public virtual Plugin {
 public:
  /// Raw score of node `node_index`.
  virtual std::int64_t score(CycleContext& ctx, const PodSpec& pod, int node_index) = 0;
  /// True when the plugin implements NormalizeScore.
  virtual bool has_normalize() const { return false; }
  /// NormalizeScore: rewrites `scores` (same order as `feasible`) in place.
  virtual void normalize(const CycleContext& /*ctx*/, const PodSpec& /*pod*/,
                         std::span<const int> /*feasible*/, std::span<std::int64_t> /*scores*/) {}
};

/// A Score plugin that also decides which cards of the chosen node the pod gets (the GPU-sharing
/// policies). After selecting the node the scheduler asks the profile's first such plugin and
/// hands its answer to the binder as a hint (ScheduleResult::cards, Reserve/PreBind-style); the
/// device plugin honours it when the cards can take the pod.
class CardChooserPlugin : public virtual Plugin {
 public:
  /// Card indices on node `node_index` for `pod`; empty: no preference.
  virtual std::vector<int> choose_cards(CycleContext& ctx, const PodSpec& pod, int node_index) = 0;
};

/// Permit (framework.PermitPlugin): runs after the pod is reserved on its node; Success lets it
/// bind, Unschedulable rejects it (the reservation is undone), Wait holds it reserved until the
/// plugin's group allows it or `timeout` passes (then it is rejected).
class PermitPlugin : public virtual Plugin {
 public:
  virtual Status permit(CycleContext& ctx, const PodSpec& pod, int node_index,
                        Duration& timeout) = 0;
};

/// One candidate placement of a pod group (KEP-5732's fwk.Placement): a name (the topology
/// label's value) and its nodes, in index order.
struct Placement {
  std::string name;
  std::vector<int> nodes;
};

/// KEP-5732's group points, run only by the pod group cycle (policies/pod_group_cycle.hpp):
/// PlacementGenerate and PlacementScore. The first such plugin of a profile is used.
class PlacementPlugin : public virtual Plugin {
 public:
  /// PlacementGenerate: the candidate placements for `group` on `view`, in the order they are
  /// tried; nullopt when the group asks for none (no topology constraint).
  virtual std::optional<std::vector<Placement>> generate(const ClusterView& view,
                                                         const PodGroupStatus& group) const = 0;
  /// PlacementScore of `placement` where `proposed` pods of `group` were placed by the cycle, on
  /// `view` without them; `pods_total` = assigned + proposed, `best_total` the largest
  /// pods_total of the feasible placements. The highest score wins.
  virtual std::int64_t score(const ClusterView& view, const Placement& placement,
                             std::span<const std::shared_ptr<const PodSpec>> proposed,
                             const PodGroupStatus& group, std::int64_t pods_total,
                             std::int64_t best_total) const = 0;
};

/// Bind: DefaultBinder's point. The run driver binds; the plugin only has to exist (a profile
/// needs at least one).
class BindPlugin : public virtual Plugin {};

/// PreEnqueue (SchedulingGates' point): named so default profiles load; no effect in tidesim.
class PreEnqueuePlugin : public virtual Plugin {};

/// True when `P` is a concrete plugin implementing every interface in `Points`.
template <class P, class... Points>
concept Implements = (std::derived_from<P, Points> && ...) && !std::is_abstract_v<P>;

/// framework DefaultNormalizeScore (pkg/scheduler/framework/plugins/helper/normalize_score.go):
/// score = max_priority * score / max_count (integer division); reverse: max_priority - that;
/// when every score is 0: all stay 0, or all become max_priority when reversed.
void default_normalize_score(std::int64_t max_priority, bool reverse,
                             std::span<std::int64_t> scores);

}  // namespace tidesim::policies
