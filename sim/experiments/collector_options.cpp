#include "tidesim/sim/experiments/collector_options.hpp"

#include "tidesim/topologies/fabric.hpp"

namespace tidesim {

metrics::StandardCollectorOptions collector_options(const Scenario& scenario,
                                                    metrics::StandardCollectorOptions base) {
  base.finish_time_fairness.all_jobs_contention = scenario.run.ftf_all_jobs;
  base.jobs.window = scenario.run.job_window;
  base.fabric_traffic.tier_capacity.clear();
  base.topology = {};
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
    // Each node's domain of the tier, in the cluster's (and the samples') node order.
    base.topology.tier_names.push_back(fabric.tiers[t].name);
    std::vector<int>& domain = base.topology.tier_domain.emplace_back();
    for (int n = 0; n < nodes; ++n) {
      domain.push_back(fabric_domain(fabric, t, n));
    }
  }
  return base;
}

}  // namespace tidesim
