#pragma once
/// What one scheduling cycle decided (Scheduler::schedule_one, policies/scheduler.hpp), with what
/// `tidesim explain` shows of each node: public (a run's explain records it,
/// sim/experiments/run.hpp) without the scheduler that makes it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/policies/framework.hpp"
#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/engine/time.hpp"

namespace tidesim::policies {

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
  /// The plugins that rejected the pod at PreFilter or on some node at Filter
  /// (UnschedulablePlugins, bits of queueing_hints()): the queue asks their hints which events may
  /// make it schedulable (SchedulingQueue::add_unschedulable). A node the Filter pass screened out
  /// (FitScreen) counts every plugin whose screen it used: a superset of the one rejecting first.
  Rejectors rejectors = 0;
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

}  // namespace tidesim::policies
