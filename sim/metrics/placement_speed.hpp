#pragma once
/// How fast jobs ran where they were placed, from job rate changes: each job's step against its
/// step on its reference placement (alone, packed onto the fewest nodes of its reference GPU,
/// docs/model-workloads.md "Run times"), the share of its step spent communicating, the time its
/// ring got less than it would alone (contention on shared links), and an LLM job's MFU.
/// docs/metrics.md, "Placement and the fabric".
#include <string>
#include <unordered_map>

#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

struct PlacementSpeedOptions {
  /// A multi-pod job's ring is contended while its bandwidth over the step is below this share of
  /// what it reaches alone (0.95: a 5% loss; an assumption, as the NVLink rule's 0.9).
  double contended_below = 0.95;
};

/// Metrics (each absent when nothing counted):
/// - step_slowdown_mean / _max: over jobs that ran with a reference step, each job's running time
///   over the time its work takes at its reference step (sum of dt over sum of dt x ref / step);
///   1 = as fast as its reference placement. Jobs that never ran are not in it: read it with
///   jobs_succeeded and jobs_never_bound.
/// - comm_share_mean: GPU-time-weighted share of multi-GPU jobs' step spent on communication
///   that compute does not hide (StepTime::sync_seconds / seconds).
/// - fabric_contended_share: share of multi-pod jobs' running GPU-time during which their ring's
///   bandwidth over the step was below contended_below x its bandwidth alone.
/// - llm_mfu_mean: GPU-time-weighted model-FLOPs utilisation of LLM jobs.
class PlacementSpeedCollector : public Collector {
 public:
  explicit PlacementSpeedCollector(PlacementSpeedOptions options = {}) : options_(options) {}
  void on_rate(const JobRate& rate) override;
  void finish(TimePoint end, MetricValues& out) const override;

 private:
  struct State {
    JobRate last;
    bool has_last = false;
    double run_s = 0.0;    // running time with a reference step
    double ideal_s = 0.0;  // the same work at the reference step
  };
  struct Sums {
    double comm_gpu_s = 0.0, multi_gpu_s = 0.0;
    double contended_gpu_s = 0.0, multi_pod_gpu_s = 0.0;
    double mfu_gpu_s = 0.0, llm_gpu_s = 0.0;
  };
  // Adds the interval the job's last rate held, up to `to`.
  static void add(const PlacementSpeedOptions& options, State& s, TimePoint to, Sums& sums);
  PlacementSpeedOptions options_;
  std::unordered_map<std::string, State> jobs_;
  Sums sums_;
};

}  // namespace tidesim::metrics
