#include "tidesim/sim/experiments/collector_options.hpp"

#include "tidesim/topologies/fabric.hpp"

namespace tidesim {

metrics::StandardCollectorOptions collector_options(const Scenario& scenario,
                                                    metrics::StandardCollectorOptions base) {
  base.finish_time_fairness.all_jobs_contention = scenario.run.ftf_all_jobs;
  base.fabric_traffic.tier_capacity.clear();
  if (!scenario.cluster.fabric) {
    return base;
  }
  int nodes = 0;
  for (const NodeGroup& g : scenario.cluster.groups) {
    nodes += g.count;
  }
  const Fabric& fabric = scenario.cluster.fabric->fabric;
  for (std::size_t t = 0; t < fabric.tiers.size(); ++t) {
    base.fabric_traffic.tier_capacity.push_back(domain_uplink_bandwidth(fabric, t, nodes));
  }
  return base;
}

}  // namespace tidesim
