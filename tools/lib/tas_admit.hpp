#pragma once
/// What-if admission of a pending Kueue Workload on a cluster snapshot with Kueue's
/// topology-aware scheduling (`tidesim admit`, docs/topology-aware.md): the snapshot's nodes and
/// running pods make the free capacity; the Workload's PodSets are placed by Kueue's
/// FindTopologyAssignmentsForFlavor (sim/admission/tas_snapshot.hpp) on the flavor its queue
/// uses, and each gets its topologyAssignment or Kueue's reason.
#include <string>
#include <vector>

#include "tidesim/sim/admission/tas_model.hpp"

namespace tidesim::app {

struct AdmitRequest {
  std::string snapshot;  // a file or folder of Kubernetes objects
  std::string workload;  // a file with one Kueue Workload
  tas::TasFeatureGates gates;
  std::string flavor;  // empty: the Workload's queue decides, or the only flavor with a topology
};

struct AdmitOutcome {
  std::string workload;  // namespace/name
  std::string flavor;
  std::string topology;
  /// Every PodSet of the Workload, in order. Kueue stops at the first that does not fit: the
  /// ones after it carry the reason "not tried: PodSet NAME does not fit".
  std::vector<tas::PodSetResult> podsets;
  bool admitted() const;
};

/// Runs the what-if. Throws InputError on bad input (naming file, line, column and field), when
/// the workload file holds no Workload or several, or when no flavor with a topology applies.
AdmitOutcome admit(const AdmitRequest& request);

/// Parses Kueue's `--feature-gates` syntax ("TASBalancedPlacement=true,TASProfileMixed=false")
/// over the defaults; an unknown gate or a value other than true/false is an InputError.
tas::TasFeatureGates parse_feature_gates(const std::string& spec);

/// {"workload", "flavor", "topology", "admitted", "podsets": [{"name", "admitted", "levels",
/// "domains": [{"values", "count"}], "reason"}]}, pretty-printed.
std::string admit_json(const AdmitOutcome& outcome);
/// A table: one line per PodSet, its domains as VALUES=COUNT.
std::string admit_table(const AdmitOutcome& outcome);

}  // namespace tidesim::app
