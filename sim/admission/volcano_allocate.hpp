#pragma once
/// Volcano's allocate action for one gang with its network-topology-aware plugin
/// (volcano-sh/volcano @ed72c7c: pkg/scheduler/actions/allocate/allocate.go allocateForJob,
/// allocateForSubJob, allocateResourcesForTasks; pkg/scheduler/plugins/network-topology-aware:
/// the HyperNode gradients, the HyperNode binpack score and the node score by LCA tier;
/// pkg/scheduler/framework/session.go: soft mode run as hard mode up to the cluster top).
///
/// A job with `networkTopology` tries the eligible HyperNodes tier by tier, lowest first (hard:
/// up to highestTierAllowed; soft: up to the cluster top, which holds every node); in each tier
/// it places its tasks in every candidate HyperNode (a dry run) and keeps the one that scores
/// highest. A job without one is placed over all nodes. docs/topology-aware.md, "Volcano".
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/admission/volcano_hypernode.hpp"

namespace tidesim::volcano {

/// Amounts by resource name: `cpu` in millicores, `memory` in bytes, `nvidia.com/gpu`, other
/// extended resources, and `pods`.
using Amounts = std::map<std::string, std::int64_t>;

/// A PodGroup's spec.networkTopology.
struct NetworkTopology {
  bool hard = true;
  /// highestTierAllowed (hard mode); soft mode ignores it.
  int highest_tier = 1;
  /// highestTierName: when set, the tier of the HyperNodes with that spec.tierName replaces
  /// highest_tier (session.go translateHighestTierNameToAllowed); a name no HyperNode has leaves
  /// the job without a hard tier (placed over every node, as Volcano's IsHardTopologyMode is
  /// then false).
  std::string highest_tier_name;
};

/// The network-topology-aware plugin's arguments (its keys: `weight`, `hypernode.binpack.cpu`,
/// `hypernode.binpack.memory`, `hypernode.binpack.resources`,
/// `hypernode.binpack.resources.<name>`, `hypernode.binpack.normal-pod.enable`,
/// `hypernode.binpack.normal-pod.fading`; defaults 1, 1, 1, none, 1, true, 0.8).
struct PluginArgs {
  int weight = 1;
  std::map<std::string, int> binpack = {{"cpu", 1}, {"memory", 1}};
  bool normal_pod_enable = true;
  double normal_pod_fading = 0.8;
};
/// Reads the arguments as Volcano does (a negative weight or fading falls back to its default);
/// throws std::invalid_argument for a value that is not a number or a boolean.
PluginArgs plugin_args(const std::map<std::string, std::string>& args);

/// One task (pod) of the gang.
struct Task {
  Amounts request;
  std::map<std::string, std::string> node_selector;
  /// The node it already runs on (a rescheduled job's running task), -1 when pending.
  int node = -1;
};

struct JobRequest {
  std::vector<Task> tasks;
  /// The gang's minAvailable (running tasks count).
  int min_available = 1;
  std::optional<NetworkTopology> topology;
  /// The PodGroup's status.allocatedHyperNode; empty when none.
  std::string allocated_hypernode;
};

struct Allocation {
  bool ready = false;
  /// The HyperNode chosen for the job (-1 none), and the LCA of its tasks' HyperNodes.
  int hypernode = -1;
  int allocated_hypernode = -1;
  /// Each task's node (the running ones' own; -1 for a task left pending).
  std::vector<int> nodes;
  /// Why it is not ready: Volcano's gang message, `M/N tasks in gang unschedulable: ...`.
  std::string reason;
};

/// The allocate action over a fixed set of nodes and HyperNodes.
class Allocator {
 public:
  /// `allocatable` and `used` per node (same order as the tree's nodes); `labels` per node.
  Allocator(const HyperNodeTree& tree, std::vector<std::map<std::string, std::string>> labels,
            std::vector<Amounts> allocatable, std::vector<Amounts> used, PluginArgs args);

  /// The job's placement (nothing changes: Volcano's statement, before commit): the gang as
  /// allocate_gang() places it, then its remaining pending tasks as the action's later passes do.
  Allocation allocate(const JobRequest& job) const;
  /// One pass of allocateForJob for the gang.
  Allocation allocate_gang(const JobRequest& job) const;
  /// The placement is taken: its pending tasks' requests are added to their nodes.
  void commit(const JobRequest& job, const Allocation& a);

  const Amounts& used(int node) const { return used_[static_cast<std::size_t>(node)]; }
  /// The tier of each spec.tierName (Volcano's HyperNodeTierNameMap), for highestTierName.
  void set_tier_names(std::map<std::string, int> names) { tier_names_ = std::move(names); }

  /// HyperNodeOrderFn over the candidates: binpack, task count on ties, x 100 x weight.
  std::vector<double> hypernode_scores(const JobRequest& job, const std::vector<int>& hs) const;

 private:
  struct Plan {
    bool ready = false;
    std::vector<int> nodes;
    int allocated = -1;
  };
  /// The eligible HyperNodes under `root` by tier, ascending (hyperNodeGradientFn).
  std::vector<std::vector<int>> gradients(int root, int highest, int allocated,
                                          const Amounts& min) const;
  /// allocateForSubJob within HyperNode `h`: its plan and score (-inf when none).
  Plan place_sub_job(const JobRequest& job, int h, int highest, double& score) const;
  /// allocateResourcesForTasks: the tasks into the nodes of `h`.
  Plan place_tasks(const JobRequest& job, int h) const;
  /// Scores of `candidates` for the next task (batchNodeOrderFn), x 100 x weight.
  std::vector<double> node_scores(const JobRequest& job, std::size_t task,
                                  const std::vector<int>& candidates, const Plan& plan,
                                  const std::map<int, Amounts>& extra) const;
  double normal_pod_score(const Task& task, int node, const std::map<int, Amounts>& extra) const;
  double binpack(const Amounts& request, int h, const std::map<int, Amounts>& extra) const;
  double tier_score(int tier) const;
  bool fits(const Task& t, int node, const std::map<int, Amounts>& extra) const;
  std::string unready_reason(const JobRequest& job) const;
  /// The job's highest allowed tier; -1: no hard tier (no topology, or an unknown tier name).
  int highest_tier(const JobRequest& job) const;

  const HyperNodeTree& tree_;
  std::vector<std::map<std::string, std::string>> labels_;
  std::vector<Amounts> allocatable_;
  std::vector<Amounts> used_;
  PluginArgs args_;
  std::map<std::string, int> tier_names_;
};

/// The tier of each spec.tierName of `specs` (the first HyperNode that names it).
std::map<std::string, int> tier_names(const std::vector<HyperNodeSpec>& specs);

}  // namespace tidesim::volcano
