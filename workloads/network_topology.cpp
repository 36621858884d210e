#include "tidesim/workloads/network_topology.hpp"

namespace tidesim::workloads {

NetworkTopologySpec read_network_topology(Fields& t, const TierKeys& keys) {
  NetworkTopologySpec nt;
  nt.hard = t.choice("mode", "hard", {"hard", "soft"}) == "hard";
  if (t.has(keys.name)) {
    if (t.has(keys.allowed)) {
      throw t.error(t.get(keys.name), keys.name,
                    "must not specify '" + keys.allowed + "' and '" + keys.name +
                        "' in networkTopology simultaneously");
    }
    nt.highest_tier_name = t.string(keys.name);
    if (nt.highest_tier_name.empty() || nt.highest_tier_name.size() > 253) {
      throw t.error(t.get(keys.name), keys.name,
                    "expected a HyperNode spec.tierName of 1 to 253 characters");
    }
  } else if (nt.hard || t.has(keys.allowed)) {
    nt.highest_tier_allowed = static_cast<int>(t.integer(keys.allowed, std::nullopt, 0, 1'000));
  }
  t.finish();
  return nt;
}

}  // namespace tidesim::workloads
