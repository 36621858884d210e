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

#include "tidesim/sim/admission/volcano_binpack.hpp"
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
  /// The binpack node-order plugin (volcano_binpack.hpp), on when a `binpack.*` key is given:
  /// its score is added to each node's.
  std::optional<BinpackArgs> node_binpack;
};
/// Reads the arguments as Volcano does (a negative weight or fading falls back to its default),
/// and the binpack plugin's (binpack_args);
/// throws std::invalid_argument for a value that is not a number or a boolean.
PluginArgs plugin_args(const std::map<std::string, std::string>& args);

/// One entry of a PodGroup's spec.subGroupPolicy (volcano-sh/apis scheduling/v1beta1
/// SubGroupPolicySpec): the tasks whose labels match `match_labels` (labelSelector.matchLabels)
/// and carry every key of `match_label_keys` form one sub-job per distinct value list; each
/// sub-job is ready with `sub_group_size` tasks placed, within one HyperNode of its own
/// networkTopology; the job needs `min_sub_groups` ready sub-jobs of the policy. Volcano's job
/// controller writes one per task with a partitionPolicy (job_controller_actions.go
/// getSubGroupPolicy: subGroupSize = partitionSize, minSubGroups = minPartitions, matchLabelKeys
/// [volcano.sh/partition-id]).
struct SubGroupPolicy {
  std::string name;
  std::map<std::string, std::string> match_labels;
  std::vector<std::string> match_label_keys;
  std::optional<NetworkTopology> topology;
  int sub_group_size = 1;
  int min_sub_groups = 0;
};

/// One task (pod) of the gang.
struct Task {
  Amounts request;
  std::map<std::string, std::string> node_selector;
  /// The node it already runs on (a rescheduled job's running task), -1 when pending.
  int node = -1;
  /// The pod's labels (what sub-group policies match).
  std::map<std::string, std::string> labels = {};
};

struct JobRequest {
  std::vector<Task> tasks;
  /// The gang's minAvailable (running tasks count).
  int min_available = 1;
  std::optional<NetworkTopology> topology;
  /// The PodGroup's status.allocatedHyperNode; empty when none.
  std::string allocated_hypernode;
  /// spec.subGroupPolicy; empty: one sub-job of every task with the gang's minAvailable.
  std::vector<SubGroupPolicy> sub_groups;
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

  /// The job's placement (nothing changes: Volcano's statement, before commit): the gang as one
  /// pass of allocateForJob places it, then its remaining pending tasks as the action's later
  /// passes do (the job goes back into its queue while its worksheet is not empty).
  Allocation allocate(const JobRequest& job) const;
  /// The placement is taken: its pending tasks' requests are added to their nodes.
  void commit(const JobRequest& job, const Allocation& a);

  const Amounts& used(int node) const { return used_[static_cast<std::size_t>(node)]; }
  /// The tier of each spec.tierName (Volcano's HyperNodeTierNameMap), for highestTierName.
  void set_tier_names(std::map<std::string, int> names) { tier_names_ = std::move(names); }

  /// HyperNodeOrderFn over the candidates for a job without sub-group policies: binpack, task
  /// count on ties, x 100 x weight.
  std::vector<double> hypernode_scores(const JobRequest& job, const std::vector<int>& hs) const;

 private:
  /// One sub-job (api.SubJobInfo): the tasks of one value list of a sub-group policy, or the
  /// job's default sub-job (the tasks no policy matches; all of them without policies).
  struct SubJob {
    int policy = -1;                 // index into sub_groups; -1: the default sub-job
    std::vector<std::size_t> tasks;  // all its tasks, running ones included
    std::vector<std::size_t> queue;  // its pending tasks not yet tried (the worksheet)
    int min_available = 1;
    bool topology = false;  // WithNetworkTopology
    int highest = -1;       // hard tier after the session's conversions; -1: none
    int allocated = -1;     // AllocatedHyperNode
    bool required = false;  // among the fewest sub-jobs that meet minSubGroups
    bool listed = false;    // still in the job's worksheet
  };
  /// A job as one session sees it, with what the action has placed so far.
  struct State {
    std::vector<SubJob> subs;
    std::vector<int> nodes;        // each task's node (-1 pending)
    std::map<int, Amounts> extra;  // requests placed by the action, by node
    int allocated = -1;            // the job's AllocatedHyperNode
    int highest = -1;              // the job's hard tier; -1: none
    bool valid = true;             // gang's CheckSubJobValid
    int chosen = -1;               // the HyperNode the first pass chose for the job
  };
  /// The session's view of the job (volcano_allocate_session.cpp).
  State open_session(const JobRequest& job) const;
  void recover_allocated(State& st, bool topology) const;
  int hard_tier(const std::optional<NetworkTopology>& t, int soft_limit) const;
  /// allocateForJob: one pass; on success `st` holds the placement.
  bool allocate_for_job(const JobRequest& job, State& st) const;
  /// allocateForSubJob of sub-job `s` within HyperNode `h`: its score, -inf for none.
  double allocate_for_sub_job(const JobRequest& job, State& st, std::size_t s, int h) const;
  /// allocateResourcesForTasks: sub-job `s`'s queued tasks into the nodes of `h`.
  bool place_tasks(const JobRequest& job, State& st, std::size_t s, int h) const;
  bool sub_ready(const State& st, const SubJob& sj) const;
  bool job_ready(const JobRequest& job, const State& st) const;
  /// The next sub-job of the worksheet (required first, then not ready, then in order).
  std::size_t pop_sub_job(std::vector<std::size_t>& waiting, const State& st) const;
  std::vector<double> sub_job_scores(const JobRequest& job, const State& st, const SubJob& sj,
                                     const std::vector<int>& hs) const;
  /// The eligible HyperNodes under `root` by tier, ascending (hyperNodeGradientFn).
  std::vector<std::vector<int>> gradients(int root, int highest, int allocated, const Amounts& min,
                                          const std::map<int, Amounts>& extra) const;
  /// getSearchRoot: `available` within the highest allowed ancestor of `allocated` (-1 none).
  int search_root(int available, int highest, int allocated) const;
  /// Scores of `candidates` for task `t` of sub-job `sj` (batchNodeOrderFn), x 100 x weight,
  /// plus the binpack plugin's when it is on.
  std::vector<double> node_scores(const State& st, const SubJob& sj, std::size_t t,
                                  const std::vector<int>& candidates, int allocated,
                                  const JobRequest& job) const;
  double normal_pod_score(const Task& task, int node, const std::map<int, Amounts>& extra) const;
  double binpack(const Amounts& request, int h, const std::map<int, Amounts>& extra) const;
  double tier_score(int tier) const;
  bool fits(const Task& t, int node, const std::map<int, Amounts>& extra) const;
  std::string unready_reason(const JobRequest& job) const;

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
