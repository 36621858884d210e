#pragma once
/// Kueue's TAS placement over one flavor's nodes (kubernetes-sigs/kueue @ff69552,
/// pkg/cache/scheduler/tas_flavor_snapshot.go, tas_topology_tree.go and
/// tas_balanced_placement.go; the algorithm of KEP-2724 "Topology Aware Scheduling"). The nodes
/// are grouped into a tree of domains by the topology's level labels; each leaf holds the free
/// capacity of its nodes (allocatable minus the requests of running non-TAS pods minus the
/// usage of admitted TAS workloads). find_assignments places the PodSets of one workload as
/// Kueue's FindTopologyAssignmentsForFlavor does: phase 1 counts the pods (and slices) each
/// domain can hold, bottom-up; phase 2 picks the domains at the requested level (BestFit,
/// LeastFreeCapacity for unconstrained requests, or balanced placement behind its gate) and
/// walks down level by level. docs/topology-aware.md has the rules.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tidesim/sim/admission/tas_model.hpp"

namespace tidesim::tas {

/// Per-domain scratch state of one placement (Kueue's domainState).
struct DomainState {
  std::int32_t pod_count = 0;
  std::int32_t slice_count = 0;
  std::int32_t pod_count_with_leader = 0;
  std::int32_t slice_count_with_leader = 0;
  std::int32_t leader_count = 0;
  std::int64_t affinity_score = 0;
};

/// A topology domain. Domains live in the snapshot's arena and refer to each other by index; a
/// copy made during a placement (a leader's share, a balanced-placement candidate) is a new
/// arena entry sharing the original's values.
struct Domain {
  std::string id;  // DomainID: the values joined by ","; a leaf of a hostname level: the hostname
  std::vector<std::string> level_values;
  int parent = -1;
  std::vector<int> children;
  int leaf = -1;  // index into the leaves; -1 for an inner domain
  /// The place of level_values among those of every domain of the tree (equal values, equal
  /// rank): comparing ranks compares the values.
  int rank = 0;
  DomainState st;
};

/// Why nodes were left out (Kueue's tasExclusionStats), for the refusal message.
struct ExclusionStats {
  int total_nodes = 0;
  int node_selector = 0;
  int affinity = 0;
  int topology_domain = 0;
  std::map<std::string, int> taints;     // "key=value:Effect" -> nodes
  std::map<std::string, int> resources;  // limiting resource -> nodes that fit no pod
  bool any() const;
  /// "affinity: 1, nodeSelector: 2, resource \"cpu\": 1, taint \"k=v:NoSchedule\": 1" (sorted).
  std::string reasons() const;
};

/// The placement inputs derived from one PodSet (Kueue's topologyAssignmentParameters).
struct PlacementParams {
  std::int32_t count = 0;
  std::int32_t leader_count = 0;
  std::int32_t slice_size = 1;
  int requested_level = 0;
  int slice_level = 0;
  bool required = false;
  bool unconstrained = false;
  std::map<int, std::int32_t> slice_size_at_level;
  std::vector<SliceLayer> multi_layers;
  ExclusionStats stats;
};

/// A pod's or node's resources as Kueue names them (`cpu` in millicores, `memory` in bytes,
/// `nvidia.com/gpu`, extended resources by name); zero amounts left out.
ResourceMap resource_map(const Resources& r);

/// Usage by leaf id: what PodSets placed earlier in the same workload take (Kueue's assumed
/// usage).
using UsageByDomain = std::map<std::string, ResourceMap>;

/// Adds `per_pod` plus one `pods` unit for every pod of `assignment` (Kueue's addAssumedUsage).
void add_assumed_usage(UsageByDomain& usage, const TopologyAssignment& assignment,
                       const ResourceMap& per_pod);

class TasSnapshot {
 public:
  /// The snapshot of the flavor whose ResourceFlavor names `topology_name` with `levels`
  /// (outermost first) and selects nodes by `flavor_node_labels`. Nodes that are not Ready, are
  /// unschedulable, lack a level label or do not match the flavor's labels are left out; bound
  /// pods that have not finished take their requests off their node.
  TasSnapshot(std::string topology_name, std::vector<std::string> levels,
              const std::vector<TasNode>& nodes, const std::vector<TasPod>& pods,
              const std::map<std::string, std::string>& flavor_node_labels = {},
              std::vector<Toleration> flavor_tolerations = {});

  /// Places the PodSets of one workload (those of one `podset-group-name` together: the one
  /// with fewer pods is the leader), in order; stops at the first PodSet that does not fit.
  /// Each placed PodSet's usage counts against the next ones.
  std::vector<PodSetResult> find_assignments(const std::vector<TasPodSet>& podsets,
                                             const TasFeatureGates& gates);

  /// Kueue's node replacement: for each PodSet with an assignment in `replacement`, the pods of
  /// the unhealthy node are placed again (inside the domain its request or an incomplete slice
  /// requires, when there is one) and merged into the rest of its assignment. PodSets without
  /// an assignment, or whose assignment has no domain on the node, get no result (they keep
  /// their domains: Kueue's flavor assigner asks only for the PodSets on the unhealthy node,
  /// WorkloadsTopologyRequests); the first failure ends it.
  std::vector<PodSetResult> find_replacements(const std::vector<TasPodSet>& podsets,
                                              const NodeReplacement& replacement,
                                              const TasFeatureGates& gates);

  /// Records an admitted workload's assignment: `count` pods of `per_pod` (plus one `pods`
  /// unit each) on each domain of the lowest level.
  void add_usage(const TopologyAssignment& assignment, const ResourceMap& per_pod);
  /// Gives back what add_usage(assignment, per_pod) took (Kueue's removeTASUsage, as its
  /// preemptor does for each candidate it simulates without: pkg/scheduler/preemption). On a
  /// leaf whose usage was counted elsewhere (a run's bound pods, in the node's free capacity) it
  /// adds the capacity back.
  void remove_usage(const TopologyAssignment& assignment, const ResourceMap& per_pod);

  /// Incremental upkeep, for a caller that keeps one snapshot while its nodes' usage changes
  /// (runs: docs/topology-aware.md, "In runs"). `node` replaces the node of the same name: its
  /// allocatable and taints, and its leaf's free capacity is summed again as the constructor
  /// sums it (the same nodes and pods in the same order, so the result is the one a new
  /// snapshot would have). Returns false, changing nothing, when the change would take the node
  /// into the snapshot or out of it or move it to another domain (its Ready condition,
  /// `unschedulable`, its labels): the caller builds a new snapshot then. A node that was left
  /// out and still is: true.
  bool update_node(const TasNode& node);
  /// Drops the usage add_usage recorded on every leaf; the nodes and their pods stay.
  void clear_usage();

  const std::vector<std::string>& levels() const { return levels_; }
  bool lowest_level_is_hostname() const { return lowest_is_node_; }

 private:
  struct Leaf {
    int domain = -1;
    const TasNode* node = nullptr;  // only when the lowest level is the hostname
    ResourceMap free_capacity;      // allocatable minus non-TAS pods
    /// free_capacity by resource_index_ (0 past its end or where the map has none).
    std::vector<std::int64_t> free_by_index;
    ResourceMap tas_usage;
    std::vector<int> nodes;  // its nodes (indices into nodes_) and pods (into pods_), in order
    std::vector<int> pods;
  };
  struct Requirements {
    ResourceMap requests;  // one pod's, with its `pods` unit
    bool has_leader = false;
    ResourceMap leader_requests;
    const std::map<std::string, ResourceMap>* assumed = nullptr;
    std::vector<int> request_index;       // each request's resource_index_; -1 none
    std::vector<Toleration> tolerations;  // the PodSet's, then the flavor's
  };

  friend class Placement;
  friend class BalancedPlacement;

  std::string topology_name_;
  std::vector<std::string> levels_;
  bool lowest_is_node_ = false;
  std::map<std::string, std::string> flavor_node_labels_;
  std::vector<TasNode> nodes_;
  std::map<std::string, int> node_by_name_;  // index into nodes_
  std::vector<TasPod> pods_;                 // the bound, unfinished pods on nodes_
  std::vector<Toleration> flavor_tolerations_;
  std::vector<Domain> domains_;  // the tree first (base_count_ entries), then copies
  std::size_t base_count_ = 0;
  std::vector<std::map<std::string, int>> per_level_;  // level -> id -> domain
  std::vector<std::vector<int>> level_order_;          // level -> its domains, in id order
  std::vector<Leaf> leaves_;
  std::vector<int> leaves_with_usage_;         // the leaves whose tas_usage is not empty
  std::map<std::string, int> resource_index_;  // each resource a leaf's capacity names
  std::map<std::string, int> leaf_by_id_;
  std::map<std::string, int> leaf_by_node_;
  TasFeatureGates gates_;

  void build(const std::vector<std::string>& leaf_ids);
  void change_usage(const TopologyAssignment& assignment, const ResourceMap& per_pod,
                    std::int32_t sign);
  bool eligible(const TasNode& node) const;
  void sum_free_capacity(Leaf& leaf);
  struct Replaced {
    TopologyAssignment merged;
    TopologyAssignment replacement;
    std::string reason;
  };
  Replaced replace_one(const TasPodSet& podset, TopologyAssignment existing,
                       const std::string& node, const std::map<std::string, ResourceMap>& assumed);
  TopologyAssignment merge(const TopologyAssignment& a, const TopologyAssignment& b) const;
  bool stale(const TopologyAssignment& assignment) const;
  bool place_elastic(const TasPodSet& workers, const TasPodSet* leader, UsageByDomain& assumed,
                     std::map<std::string, PodSetResult>& out);
  int add_parents(int domain);
};

}  // namespace tidesim::tas
