#pragma once
/// `tidesim admit` for a Workload whose LocalQueue names a ClusterQueue of the snapshot
/// (docs/topology-aware.md, "Quota, partial admission and admission checks"): Kueue's scheduler
/// for one Workload. The ClusterQueue's quota is the quota walk runs use (select_with_quotas,
/// sim/admission/quota.hpp; one job per PodSet, in order), charged with the requests after the
/// Configuration's resource transformations (sim/admission/kueue_transform.hpp); each PodSet is
/// then placed on its flavour with a topology (TasSnapshot::find_assignments, the PodSets of one
/// flavour together), unless a ProvisioningRequest check delays it
/// (sim/admission/kueue_checks.hpp). When the whole Workload does not fit and a PodSet has
/// minCount below its count, Kueue's partial admission search (sim/admission/kueue_partial.hpp)
/// finds the largest counts that fit quota and topology. A Workload that holds quota
/// (status.admission) gets Kueue's second pass: the delayed PodSets are placed on the flavours
/// they hold, with the Ready checks' podSetUpdates, without charging the quota again.
#include <optional>
#include <vector>

#include "tidesim/sim/admission/kueue_transform.hpp"
#include "tidesim/sim/scenario/kube_snapshot.hpp"
#include "tidesim/tools/lib/tas_admit_types.hpp"

namespace tidesim::app {

/// nullopt when the Workload's LocalQueue names no ClusterQueue object of the snapshot (`admit`
/// then places the topology alone). Throws InputError on bad input.
std::optional<AdmitOutcome> admit_in_queue(
    const KueueSnapshot& snapshot, const KueueWorkload& workload, const AdmitRequest& request,
    const std::vector<tas::ResourceTransformation>& transformations);

}  // namespace tidesim::app
