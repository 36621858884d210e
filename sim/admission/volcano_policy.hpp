#pragma once
/// Volcano's scheduler as a job-level policy (docs/topology-aware.md, "Volcano"): at each
/// decision the jobs not yet admitted are taken in submission order and each gang is placed by
/// Volcano's allocate action with the network-topology-aware plugin (volcano_allocate.hpp) on the
/// cluster as it is (allocatable minus the requests of bound pods and of the pods of admitted
/// jobs not yet bound, counted on the nodes Volcano gave them). A gang that can be placed is
/// admitted and each pod is sent to its node (JobDecision::pod_nodes); one that cannot waits, as
/// Volcano leaves a PodGroup pending, with the gang plugin's message. Admitted jobs are kept. A
/// gang that is ready with pods left pending (partition_policy.min_partitions below its
/// partitions) is admitted with those pods held; each later decision places them (after the
/// gangs that are not ready, as the gang plugin's job order does) and releases the placed ones.
///
///   admission:
///     policy: volcano
///     hypernodes: {from_labels: [LEAF_KEY, SPINE_KEY]}   # or a list of HyperNode objects, or
///     {file: F} args: {mode: hard, highest_tier_allowed: 1, hypernode.binpack.resources:
///     nvidia.com/gpu}
///
/// A job's own PodGroup networkTopology (`gang: {network_topology: ...}`) is used when it has
/// one; `mode` and `highest_tier_allowed` give every other gang one (a tidesim convenience for
/// comparing modes on one workload); the plugin's other arguments are Volcano's own keys.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/admission/job_policy.hpp"
#include "tidesim/sim/admission/volcano_allocate.hpp"

namespace tidesim {

class VolcanoPolicy : public JobPolicy {
 public:
  /// std::invalid_argument for an unknown or bad argument, or without `hypernodes`.
  explicit VolcanoPolicy(const AdmissionConfig& config);
  std::string_view name() const override { return "volcano"; }
  JobDecision decide(const JobPolicyState& state) override;
  /// The pending tasks of a ready gang, and a restarted partition's (on_failure:
  /// restart_partition), are placed by later decisions.
  bool places_held_pods() const override { return true; }

  /// The gang message of the last decision that left job `id` pending (empty when none).
  const std::string& reason(int id) const;

 private:
  void build_tree(const ClusterView& cluster);
  volcano::JobRequest request(const JobView& job) const;
  std::vector<volcano::Amounts> used_now(const JobPolicyState& state) const;
  /// The names of `nodes` (by index; "" for -1, a task left pending).
  std::vector<std::string> names(const std::vector<int>& nodes) const;

  std::shared_ptr<const volcano::HyperNodeSource> source_;
  volcano::PluginArgs args_;
  std::optional<volcano::NetworkTopology> default_topology_;
  std::unique_ptr<volcano::HyperNodeTree> tree_;
  std::map<std::string, int> tier_names_;
  std::vector<NodeSpec> nodes_;
  std::map<std::string, int> node_index_;
  /// Per admitted job: the node of each of its pods.
  std::map<int, std::vector<int>> plans_;
  std::map<int, std::string> reasons_;
};

}  // namespace tidesim
