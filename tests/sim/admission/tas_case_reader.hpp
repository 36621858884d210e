#pragma once
// Reads the YAML form of Kueue's TestFindTopologyAssignments cases
// (tests/sim/admission/data/kueue_find_topology_assignments.yaml, written by
// tools/port-kueue-tas-cases.py): per case the levels, the flavor's node labels, the nodes
// (labels, allocatable as Kubernetes quantities, taints, ready, unschedulable), running pods,
// the feature gates and the PodSets with the assignment or reason Kueue's test expects.
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/admission/tas_snapshot.hpp"

namespace tidesim::tas {

struct KueueCase {
  std::string name;
  std::string not_converted;  // why the case is not ported; empty when it is
  std::string deviation;      // how tidesim's outcome differs from upstream's, and why
  std::vector<std::string> levels;
  /// The Topology's name (Kueue's messages quote it).
  std::string topology = "default";
  /// Scheduler-level cases: the ResourceFlavor's name (the flavor assigner's messages quote it).
  std::string flavor = "tas-default";
  std::map<std::string, std::string> flavor_node_labels;
  std::vector<Toleration> flavor_tolerations;
  std::vector<TasNode> nodes;
  std::vector<TasPod> pods;
  /// Usage of admitted TAS workloads: pods of `requests` on a lowest-level domain.
  struct Usage {
    TopologyAssignment where;
    ResourceMap requests;
  };
  std::vector<Usage> tas_usage;
  TasFeatureGates gates;
  /// An admitted Workload with an unhealthy node: the case asks for its replacement.
  std::optional<NodeReplacement> replacement;
  std::vector<TasPodSet> podsets;
  struct Want {
    std::string name;
    std::optional<TopologyAssignment> assignment;
    std::string reason;
    /// Scheduler-level cases: the event message Kueue's test expects ("couldn't assign flavors
    /// to pod set NAME: " and the placement's reason), or only that the PodSet stays pending
    /// (the test ignores the message).
    std::string message;
    bool pending = false;
  };
  std::vector<Want> want;
  /// Scheduler-level replacement cases: a pending workload the same scheduling cycle places
  /// after the replacement (its PodSets and what upstream expects for them).
  std::vector<TasPodSet> then_podsets;
  std::vector<Want> then_want;
};

std::vector<KueueCase> read_kueue_cases(const std::string& path);

/// A GoogleTest-safe test name: the index, then the case name's letters and digits.
std::string gtest_name(std::size_t index, const std::string& name);

}  // namespace tidesim::tas
