#pragma once
/// How fast jobs ran where they were placed, from job rate changes: each job's step against its
/// step on its reference placement (alone, packed onto the fewest nodes of its reference GPU,
/// docs/model-workloads.md "Run times"), the share of its step spent communicating, the time its
/// ring moved less than it would with its links to itself (contention on shared links), and an
/// LLM job's MFU. docs/metrics.md, "Placement and the fabric".
#include <optional>
#include <string>
#include <unordered_map>

#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

struct PlacementSpeedOptions {
  /// A multi-pod job's ring is contended while its average rate is below this share of what it
  /// moves with its links to itself (0.95: a 5% loss; an assumption, as the NVLink rule's 0.9).
  double contended_below = 0.95;
};

/// One job's figures over its running time (each nullopt when nothing counted).
struct JobPlacementSpeed {
  /// Running time over the time its work takes at its reference step (1: as fast as there).
  std::optional<double> step_slowdown;
  /// Time-weighted share of its step spent on communication compute does not hide (jobs of more
  /// than one GPU).
  std::optional<double> comm_share;
  /// Time-weighted model-FLOPs utilisation (LLM jobs).
  std::optional<double> mfu;
  /// Running seconds during which its ring was contended (jobs of several pods with a ring).
  std::optional<double> contended_s;
};

/// Metrics (each absent when nothing counted):
/// - step_slowdown_mean / _max: over jobs that ran with a reference step, each job's running time
///   over the time its work takes at its reference step (sum of dt over sum of dt x ref / step);
///   1 = as fast as its reference placement. Jobs that never ran are not in it: read it with
///   jobs_succeeded and jobs_never_bound.
/// - comm_share_mean: GPU-time-weighted share of multi-GPU jobs' step spent on communication
///   that compute does not hide (StepTime::sync_seconds / seconds).
/// - fabric_contended_share: share of multi-pod jobs' running GPU-time during which their ring's
///   average rate was below contended_below x what it moves with its links to itself
///   (JobRate::ring_demand): time lost to links shared with other jobs.
/// - fabric_slowed_jobs: jobs whose ring was contended at some time;
/// fabric_slowed_step_slowdown_mean:
///   their mean step slowdown (jobs with a reference step).
/// - llm_mfu_mean: GPU-time-weighted model-FLOPs utilisation of LLM jobs.
class PlacementSpeedCollector : public Collector {
 public:
  explicit PlacementSpeedCollector(PlacementSpeedOptions options = {}) : options_(options) {}
  void on_rate(const JobRate& rate) override;
  void finish(TimePoint end, MetricValues& out) const override;
  /// Every job's figures up to `end`, by job name (jobs that never had a rate are absent).
  std::unordered_map<std::string, JobPlacementSpeed> job_figures(TimePoint end) const;

 private:
  // The fields of a job's last rate the sums need (no name: the map's key holds it).
  struct Rate {
    TimePoint at{};
    bool running = false, multi_pod = false, llm = false;
    int gpus = 0;
    double step_s = 0.0, reference_step_s = 0.0, comm_s = 0.0, mfu = 0.0;
    double ring_rate = 0.0, ring_demand = 0.0;
  };
  struct State {
    Rate last;
    bool has_last = false;
    double run_s = 0.0;    // running time with a reference step
    double ideal_s = 0.0;  // the same work at the reference step
    // GPU-seconds: running with more than one GPU, and times the comm share; an LLM job's, and
    // times its MFU; running with a measured ring, and contended; and contended seconds.
    double multi_gpu_s = 0.0, comm_gpu_s = 0.0;
    double llm_gpu_s = 0.0, mfu_gpu_s = 0.0;
    double ring_gpu_s = 0.0, contended_gpu_s = 0.0, contended_s = 0.0;
  };
  // The run's GPU-second sums (the same as the jobs' sums, added in the order the intervals
  // close, so the metrics do not depend on the order of the jobs' table).
  struct Sums {
    double comm_gpu_s = 0.0, multi_gpu_s = 0.0;
    double contended_gpu_s = 0.0, ring_gpu_s = 0.0;
    double mfu_gpu_s = 0.0, llm_gpu_s = 0.0;
  };
  // Adds the interval the job's last rate held, up to `to`, to the job's sums and to `sums`.
  static void add(const PlacementSpeedOptions& options, State& s, TimePoint to, Sums& sums);
  PlacementSpeedOptions options_;
  std::unordered_map<std::string, State> jobs_;
  Sums sums_;
};

}  // namespace tidesim::metrics
