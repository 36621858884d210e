#pragma once
/// Metrics of the sampled cluster state: GPU-utilisation balance, allocation rate, queue length.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "tidesim/sim/metrics/collector.hpp"
#include "tidesim/sim/metrics/node_stats.hpp"
#include "tidesim/sim/metrics/per_node_values.hpp"
#include "tidesim/sim/metrics/step_average.hpp"

namespace tidesim::metrics {

/// From ClusterSample signals. Each sample's value holds until the next sample (the last until the
/// run's end); see StepAverage. Produces:
/// - gpu_util_stddev: time-weighted mean of the population std-dev across nodes of node GPU
///   utilisation (node utilisation = mean of its cards), as a share in [0, 1];
/// - gpu_util_stddev_busy: the same mean over the busy window only, the samples with pending pods
///   (while a placement decision is waiting, not the tail after the last arrival was placed);
/// - gpu_util_stddev_node_avg: population std-dev across nodes of each node's time-weighted mean
///   utilisation over the run (average each node first, then one spread);
/// - gpu_util_mean: time-weighted mean of the mean node GPU utilisation;
/// - gpu_allocation_rate: time-weighted sum(allocated) / sum(allocatable) GPU units;
/// - queue_length_mean / queue_length_max: pending pods, time-weighted mean and largest.
class ClusterBalanceCollector : public Collector {
 public:
  void on_sample(const ClusterSample& sample) override;
  void finish(TimePoint end, MetricValues& out) const override;

 private:
  /// A node's name and its utilisation's time-weighted mean (no value for nodes without GPUs).
  /// The average is brought up to date lazily: while the node's value stays `value`, the samples
  /// from `pending_from` on are not yet added to it (they are added, in order, when the value
  /// changes, the layout changes or finish() reads it: the same additions as one per sample).
  struct NodeAverage {
    std::string name;
    StepAverage average;
    double value = 0.0;
    std::size_t pending_from = 0;  // index into times_
    bool pending = false;          // samples from pending_from on carry `value`
  };

  /// Points slot_of_ at the nodes of `sample` (by name), adding the nodes not seen before.
  void map_nodes(const ClusterSample& sample);
  /// Adds the pending samples of `node` to its average.
  void flush(NodeAverage& node) const;
  /// From the sample just appended to times_ on, node `slot` has the value `v`.
  void set_value(std::size_t slot, double v);

  StepAverage util_stddev_;
  StepAverage util_stddev_busy_;
  /// Each node's utilisation, recomputed only for nodes that changed.
  PerNodeValues utils_{node_gpu_utilization};
  /// One per node name ever sampled; finish() visits them in name order.
  std::vector<NodeAverage> node_util_;
  std::map<std::string, std::size_t, std::less<>> slot_by_name_;
  /// Per position in the latest sample: its node's index in node_util_.
  std::vector<std::size_t> slot_of_;
  bool slots_have_revisions_ = false;
  /// The instant of every sample so far, for the nodes' pending samples.
  std::vector<TimePoint> times_;
  /// Per position in the latest sample: its allocated and allocatable GPU units, and their sums.
  std::vector<int> allocated_of_;
  std::vector<int> allocatable_of_;
  long allocated_ = 0;
  long allocatable_ = 0;
  /// The spread and mean of the latest sample's node utilisations.
  std::optional<double> spread_;
  std::optional<double> mean_;
  StepAverage util_mean_;
  StepAverage allocation_;
  StepAverage queue_;
};

}  // namespace tidesim::metrics
