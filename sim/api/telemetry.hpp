#pragma once
/// What a load-aware policy may see: node metrics as a Prometheus query returns them, stale by
/// the sampling and scrape intervals, possibly late or missing (fault injection).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"

namespace tidesim {

/// One node's metrics as last scraped (the seed's ai-node-metrics series).
struct NodeMetrics {
  /// ai_gpu_memory_utilization per card, in [0, 1], indexed by card.
  std::vector<double> gpu_memory_utilization;
  /// Per card: share of time the card computes, in [0, 1] (DCGM's GPU utilisation).
  std::vector<double> gpu_utilization;
  /// ai_nvlink_competition_index: NVLink-requiring tasks / (GPUs x 2).
  double nvlink_competition_index = 0.0;
  /// ai_storage_await_ms per device name.
  std::map<std::string, double> storage_await_ms;
  /// When the node agent took the sample.
  TimePoint sampled_at{};
};

/// The answer to one metrics query.
struct MetricsAnswer {
  /// Empty when the query failed (outage, silent agent never scraped).
  std::optional<NodeMetrics> metrics;
  /// How long the query took (the seed's fallback starts when it exceeds 5 s).
  Duration latency = Duration::zero();
};

/// The seed's NVLink competition index (SEED-DIGEST.md 2.2), the value of
/// ai_nvlink_competition_index: NVLink-requiring tasks on the node / (GPUs x 2). 2 tasks on 4 GPUs
/// -> 0.25; 0 for a node without GPUs. Throws std::invalid_argument on a negative count. The run
/// publishes it; the load-aware plugins read it and add its per-task step for estimated pods.
double nvlink_competition_index(int nvlink_tasks, int gpus);

/// A source of node metrics (the simulated Prometheus). Implemented in sim/telemetry_pipeline.
class MetricsSource {
 public:
  virtual ~MetricsSource() = default;
  /// Queries the latest scraped metrics of node `node` at time `now`.
  virtual MetricsAnswer query(const std::string& node, TimePoint now) const = 0;
  /// The node's metrics predicted for `now` plus the scenario's prediction horizon from the
  /// scraped history (docs/prediction.md); nullopt when the run predicts nothing or the node has
  /// no history. Read after a successful query(), whose latency it shares.
  virtual std::optional<NodeMetrics> forecast(const std::string& /*node*/,
                                              TimePoint /*now*/) const {
    return std::nullopt;
  }
};

}  // namespace tidesim
