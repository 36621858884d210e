#pragma once
/// A Volcano PodGroup's spec.networkTopology read from a mapping, the one rule of its two
/// spellings: a PodGroup manifest's camelCase (workloads/manifest.cpp) and a job class's snake case
/// (workloads/workload_spec.cpp).
#include <string>

#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/workloads/job.hpp"

namespace tidesim::workloads {

/// Reads the networkTopology mapping `t` (volcano-sh/apis scheduling/v1beta1
/// NetworkTopologySpec): `mode` (hard, the default, or soft) and the highest tier under
/// `tier_key`, required by hard mode ("highestTierAllowed" in a manifest, "highest_tier_allowed"
/// in a job class); highestTierName is not read. Calls t.finish().
NetworkTopologySpec read_network_topology(Fields& t, const std::string& tier_key);

}  // namespace tidesim::workloads
