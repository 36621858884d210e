#pragma once
/// What can be observed of the cluster: the true state of a node (per-card utilisation, memory,
/// NVLink use, the NVLink competition index, storage await), which the metric collectors sample,
/// and the node agent's view of it (the seed's ai-node-metrics), which telemetry carries to the
/// policies.
#include "sim/api/run_signals.hpp"
#include "sim/api/telemetry.hpp"
#include "sim/run_context.hpp"

namespace tidesim {

/// The true state of node `n` now.
NodeState node_state(const RunContext& run, int n);

/// What node `n`'s agent reports now: per-card memory utilisation, the competition index and
/// its data device's await.
NodeMetrics agent_sample(const RunContext& run, int n);

/// The whole cluster now, with `pending_pods` waiting to be scheduled.
ClusterSample cluster_sample(const RunContext& run, int pending_pods);

}  // namespace tidesim
