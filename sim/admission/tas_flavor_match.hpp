#pragma once
/// Whether a ResourceFlavor may take a PodSet, as far as topology-aware scheduling goes: Kueue's
/// checkPodSetAndFlavorMatchForTAS (kubernetes-sigs/kueue @ff69552,
/// pkg/scheduler/flavorassigner/tas_flavorassigner.go), which its flavor assigner asks of each
/// flavour of a resource group before the quota (checkFlavorForPodSets, flavorassigner.go).
/// The quota walk (quota.hpp) and `tidesim admit` (tools/lib/tas_admit) both ask it
/// (docs/topology-aware.md, "Several flavours").
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/admission/tas_model.hpp"

namespace tidesim::tas {

/// Kueue's TASFlavorSnapshot::HasLevel: the topology `levels` hold the request's level
/// (required, else preferred, else the highest level for slices alone, else the lowest for
/// unconstrained), its slice level (the first slice layer's, else the lowest) and every slice
/// layer's level.
bool has_level(const std::vector<std::string>& levels, const TopologyRequest& request);

/// Kueue's checkPodSetAndFlavorMatchForTAS for one PodSet and one flavour: "" when they match,
/// else Kueue's message. `request` is the PodSet's topology request (nullptr: it asks none, as
/// request_from_annotations reads it: Kueue's IsExplicitlyRequestingTAS); `levels` the
/// flavour's topology levels (nullptr: a flavour without spec.topologyName); `queue_tas_only`
/// whether every flavour of the ClusterQueue has a topology (a PodSet that asks none is then
/// placed as an implied request); `overlaps` whether the PodSet requests a resource of the
/// flavour's resource group (a flavour without a topology may still give it the others).
///  - asks a topology (explicitly, or implied): a flavour without one is refused
///    (`Flavor "F" does not support TopologyAwareScheduling`) unless it does not overlap; a
///    topology without the level is refused (`Flavor "F" does not contain the requested
///    level`); an implied request matches every flavour;
///  - asks none: a flavour with a topology is refused (`Flavor "F" supports only
///    TopologyAwareScheduling`).
std::string flavor_mismatch(const std::string& flavor, const std::vector<std::string>* levels,
                            const TopologyRequest* request, bool queue_tas_only,
                            bool overlaps = true);

}  // namespace tidesim::tas
