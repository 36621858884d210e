#pragma once
/// A Volcano PodGroup's spec.networkTopology read from a mapping, the one rule of its two
/// spellings: a PodGroup manifest's camelCase (workloads/manifest.cpp) and a job class's snake case
/// (workloads/workload_spec.cpp).
#include <string>

#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/workloads/job.hpp"

namespace tidesim::workloads {

/// The spelling of networkTopology's two tier keys.
struct TierKeys {
  std::string
      allowed;       ///< "highestTierAllowed" in a manifest, "highest_tier_allowed" in a job class
  std::string name;  ///< "highestTierName" in a manifest, "highest_tier_name" in a job class
};

/// Reads the networkTopology mapping `t` (volcano-sh/apis scheduling/v1beta1
/// NetworkTopologySpec): `mode` (hard, the default, or soft) and the highest tier, either by number
/// (`keys.allowed`) or by HyperNode tier name (`keys.name`); hard mode needs one, and Volcano's
/// job webhook refuses both at once (pkg/webhooks/admission/jobs/validate/admit_job.go
/// validateNetworkTopology). Calls t.finish().
NetworkTopologySpec read_network_topology(Fields& t, const TierKeys& keys);

}  // namespace tidesim::workloads
