#pragma once
/// The parameters of a run's standard collectors that come from its scenario: the capacity of each
/// fabric tier's up-links (the utilisation's denominator, sim/metrics/fabric_traffic.hpp).
#include "tidesim/sim/metrics/standard_collectors.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim {

/// `base` with what `scenario` sets: on a `cluster.fabric`, each tier's up-link capacity over all
/// its domains (domain_uplink_bandwidth of every node: linear in the nodes).
metrics::StandardCollectorOptions collector_options(const Scenario& scenario,
                                                    metrics::StandardCollectorOptions base = {});

}  // namespace tidesim
