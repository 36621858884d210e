#pragma once
/// What-if admission of a pending Kueue Workload on a cluster snapshot with Kueue's
/// topology-aware scheduling (`tidesim admit`, docs/topology-aware.md): the snapshot's nodes and
/// running pods make the free capacity; the Workload's PodSets are placed by Kueue's
/// FindTopologyAssignmentsForFlavor (sim/admission/tas_snapshot.hpp) on the flavor its queue
/// uses, and each gets its topologyAssignment or Kueue's reason.
#include <string>

#include "tidesim/sim/admission/tas_model.hpp"
#include "tidesim/tools/lib/tas_admit_types.hpp"

namespace tidesim::app {

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
