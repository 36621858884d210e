#pragma once
/// The seed's third health indicator: NVLink variance per node across its GPUs, alert > 0.02.
#include "tidesim/sim/metrics/collector.hpp"
#include "tidesim/sim/metrics/per_node_values.hpp"
#include "tidesim/sim/metrics/step_average.hpp"

namespace tidesim::metrics {

/// Parameters of NvlinkVarianceCollector.
struct NvlinkVarianceOptions {
  /// Alert threshold on the variance (utilisation as a share in [0, 1]): the seed's 0.02.
  double threshold = 0.02;
};

/// From ClusterSample signals. For each node that reports NVLink utilisation (a non-empty
/// nvlink_utilization vector), v_n = population variance across the node's GPUs of their NVLink
/// utilisation. Per sample: the mean of v_n over those nodes and the share of them with
/// v_n > threshold, each held until the next sample. Produces nvlink_variance_mean
/// (time-weighted mean of the per-sample mean), nvlink_variance_max (largest v_n seen),
/// nvlink_variance_alert_share (time-weighted share of nodes above the threshold, i.e. the share
/// of node-time), nvlink_variance_alert (1 when any node ever exceeded it). Absent when no node
/// reports NVLink utilisation.
class NvlinkVarianceCollector : public Collector {
 public:
  explicit NvlinkVarianceCollector(NvlinkVarianceOptions options = {});

  void on_sample(const ClusterSample& sample) override;
  void finish(TimePoint end, MetricValues& out) const override;

 private:
  NvlinkVarianceOptions options_;
  /// Each node's v_n, recomputed only for nodes that changed.
  PerNodeValues variance_;
  StepAverage mean_;
  StepAverage alert_share_;
  std::optional<double> max_;
  /// The latest sample's mean of v_n and share of nodes above the threshold.
  std::optional<double> sample_mean_;
  std::optional<double> sample_share_;
};

}  // namespace tidesim::metrics
