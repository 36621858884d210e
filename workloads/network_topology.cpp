#include "tidesim/workloads/network_topology.hpp"

namespace tidesim::workloads {

NetworkTopologySpec read_network_topology(Fields& t, const std::string& tier_key) {
  NetworkTopologySpec nt;
  nt.hard = t.choice("mode", "hard", {"hard", "soft"}) == "hard";
  if (nt.hard || t.has(tier_key)) {
    nt.highest_tier_allowed = static_cast<int>(t.integer(tier_key, std::nullopt, 0, 1'000));
  }
  t.finish();
  return nt;
}

}  // namespace tidesim::workloads
