#pragma once
/// The seed's first health indicator: LSCS (load std-dev convergence speed) and its
/// "> 15% for 10 minutes" alert (SEED-DIGEST section 5).
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "tidesim/sim/engine/statistics.hpp"
#include "tidesim/sim/metrics/collector.hpp"
#include "tidesim/sim/metrics/node_stats.hpp"
#include "tidesim/sim/metrics/per_node_values.hpp"

namespace tidesim::metrics {

/// Parameters of LscsCollector (the seed's values by default).
struct LscsOptions {
  /// Trailing window: the seed's PromQL range `[5m]`.
  Duration window = std::chrono::minutes(5);
  /// Alert threshold on LSCS, a share: 15%.
  double threshold = 0.15;
  /// Alert when LSCS stays above the threshold this long: 10 min.
  Duration alert_after = std::chrono::minutes(10);
};

/// From ClusterSample signals. At sample i, s_i = population std-dev across nodes of node
/// GPU-memory utilisation (node_gpu_memory_utilization). LSCS_i = plain mean of the s_j of the
/// samples with t_j in (t_i - window, t_i] (PromQL *_over_time range semantics: samples, not time,
/// are averaged; the first window is shorter); the window's sum is kept exactly and rounded once,
/// in constant time per sample. LSCS_i holds until the next sample (the last until
/// the run's end). Produces lscs_mean (time-weighted), lscs_max, lscs_time_above_share (time
/// with LSCS > threshold / total), lscs_longest_above_s (longest contiguous such stretch), and
/// lscs_alert (1 when that stretch >= alert_after).
class LscsCollector : public Collector {
 public:
  explicit LscsCollector(LscsOptions options = {}) : options_(options) {}

  void on_sample(const ClusterSample& sample) override;
  void finish(TimePoint end, MetricValues& out) const override;

  /// The LSCS series so far: (sample instant, LSCS), std::nullopt where undefined.
  const std::vector<std::pair<TimePoint, std::optional<double>>>& series() const { return series_; }

 private:
  LscsOptions options_;
  /// Each node's GPU-memory utilisation, recomputed only for nodes that changed.
  PerNodeValues memory_{node_gpu_memory_utilization};
  /// s_i of the latest sample.
  std::optional<double> spread_;
  std::deque<std::pair<TimePoint, double>> window_;
  ExactSum window_sum_;  // of window_'s values
  std::vector<std::pair<TimePoint, std::optional<double>>> series_;
};

}  // namespace tidesim::metrics
