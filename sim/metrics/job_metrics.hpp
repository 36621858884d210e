#pragma once
/// Metrics of job lifecycles: waits, completion times, makespan, throughput, OOM kills,
/// evictions, restarts and the task migration rate.
#include <map>
#include <optional>
#include <string>

#include "sim/metrics/collector.hpp"

namespace tidesim::metrics {

/// Parameters of JobMetricsCollector.
struct JobMetricsOptions {
  /// Migration-rate alert threshold: the seed's "healthy < 0.5%" (SEED-DIGEST section 5).
  double migration_alert_threshold = 0.005;
};

/// From JobEvent signals. A "task" is a job (the seed submits 100 tasks = 100 jobs). Produces:
/// - mean_wait_s, wait_p95_s: submit -> first kBound of the job, over jobs bound at least once;
/// - unscheduled_jobs: jobs submitted but never bound (reported apart, not in the wait);
/// - jct_mean_s, jct_p50_s, jct_p95_s, jct_p99_s: submit -> kSucceeded over succeeded jobs
///   (quantiles by linear interpolation, R-7: quantile() in sim/engine/statistics.hpp);
/// - makespan_s: first submit -> last kSucceeded/kFailed, only when every submitted job ended;
/// - throughput_jobs_per_hour: succeeded jobs / hours from first submit to the makespan's end
///   (or to the run's end while some job is unfinished);
/// - oom_kills, evictions, restarts: event counts; jobs_submitted, succeeded_jobs, failed_jobs;
/// - migration_rate: evictions / jobs submitted; migration_rate_alert: 1 when >= the threshold.
class JobMetricsCollector : public Collector {
 public:
  explicit JobMetricsCollector(JobMetricsOptions options = {}) : options_(options) {}

  void on_job(const JobEvent& event) override;
  void finish(TimePoint end, MetricValues& out) const override;

 private:
  struct Track {
    std::optional<TimePoint> submitted;
    std::optional<TimePoint> first_bound;
    std::optional<TimePoint> succeeded;
    std::optional<TimePoint> failed;
  };
  JobMetricsOptions options_;
  std::map<std::string, Track, std::less<>> jobs_;
  long oom_kills_ = 0;
  long evictions_ = 0;
  long restarts_ = 0;
};

}  // namespace tidesim::metrics
