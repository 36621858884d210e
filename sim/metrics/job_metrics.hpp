#pragma once
/// Metrics of job lifecycles: waits, completion times, makespan, throughput, OOM kills,
/// evictions, restarts and the rates of migrations, preemptions and suspensions.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

/// One job's time to its end for Kaplan-Meier: `seconds` from submit, `observed` true for a
/// success (an event) and false for a censored time (failed, or unfinished at the run's end).
struct SurvivalTime {
  double seconds = 0.0;
  bool observed = false;
};

/// Kaplan-Meier (product-limit) median: with the distinct event times t_1 < t_2 < ..., d_i
/// events at t_i and n_i jobs with time >= t_i (censored times equal to t_i count as at risk, the
/// usual convention), S(t) = prod_{t_i <= t} (1 - d_i / n_i); the median is the smallest t_i with
/// S(t_i) <= 0.5. std::nullopt when S never falls to 0.5 (more than half censored early) or the
/// list is empty. Kaplan & Meier, JASA 53 (1958) 457-481.
std::optional<double> kaplan_meier_median(std::vector<SurvivalTime> times);

/// Parameters of JobMetricsCollector.
struct JobMetricsOptions {
  /// Migration-rate alert threshold: the seed's "healthy < 0.5%" (SEED-DIGEST section 5).
  double migration_alert_threshold = 0.005;
  /// `run.job_window`: only the jobs submitted first to last (0-based, in submission order) are
  /// counted; the others' events are ignored.
  std::optional<std::pair<long, long>> window;
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
/// - oom_jobs: jobs with at least one OOM kill;
/// - pending_total_mean_s: over jobs bound at least once, the mean of the job's time in the
///   scheduling queue summed over its attempts (see attempt_pending());
/// - start_wait_mean_s: over every submitted job, submit -> the kStarted of the job's latest
///   attempt (the one that succeeded, the one that failed, or the one running at the end), or
///   submit -> the run's end when that attempt has not started (censored: a job still waiting
///   for its start waited at least that long);
/// - jct_km_p50_s: Kaplan-Meier median of submit -> success, failed jobs censored at their
///   failure and unfinished jobs at the run's end (kaplan_meier_median()); censored_jobs: their
///   number;
/// - migration_rate, preemption_rate, suspension_rate: job attempts stopped by the descheduler
///   (kEvicted cause "migration"), by scheduler preemption ("preemption") and by the job-level
///   admission policy ("suspension"), each / jobs submitted (an attempt's evicted pods count
///   once); migration_rate_alert: 1 when migration_rate >= the threshold;
/// - slo_jobs, slo_violations, slo_violation_share: over the jobs with a deadline
///   (JobFacts::deadline_s > 0, Gavel's SLOs), those that did not succeed within it (submit ->
///   kSucceeded above deadline_s, or no success by the run's end: a failed or unfinished job
///   missed it), and their share; only when some job has a deadline.
class JobMetricsCollector : public Collector {
 public:
  explicit JobMetricsCollector(JobMetricsOptions options = {}) : options_(options) {}

  void on_job(const JobEvent& event) override;
  void finish(TimePoint end, MetricValues& out) const override;

 private:
  // migration_rate (and its alert), preemption_rate, suspension_rate over `submitted` jobs.
  void stop_rates(long submitted, MetricValues& out) const;
  // slo_jobs, slo_violations, slo_violation_share.
  void deadline_metrics(MetricValues& out) const;
  /// One attempt: when its pods were queued (submit, or the Job controller re-creating them;
  /// absent for an in-place restart), its last pod bind and its start.
  struct Attempt {
    std::optional<TimePoint> queued;
    std::optional<TimePoint> last_bound;
    std::optional<TimePoint> started;
  };
  struct Track {
    std::optional<TimePoint> submitted;
    std::optional<TimePoint> first_bound;
    std::optional<TimePoint> succeeded;
    std::optional<TimePoint> failed;
    /// Seconds from submit to its deadline; 0: none.
    double deadline_s = 0.0;
    long oom_kills = 0;
    std::map<int, Attempt> attempts;
  };
  /// Seconds the job spent in the scheduling queue over all its attempts up to `end`.
  static double pending_seconds(const Track& job, TimePoint end);
  JobMetricsOptions options_;
  std::map<std::string, Track, std::less<>> jobs_;  // by name: finish() sums in name order
  // jobs_'s entries by name, hashed: an event finds its job without a search of every job seen.
  std::unordered_map<std::string, Track*> track_by_name_;
  // With a window: jobs submitted so far, and those outside the window (ignored).
  long submitted_ = 0;
  std::unordered_set<std::string> outside_;
  long oom_kills_ = 0;
  long evictions_ = 0;
  // Attempts stopped by each eviction cause: cause -> (job, attempt).
  std::map<std::string, std::set<std::pair<std::string, int>>, std::less<>> stopped_;
  long restarts_ = 0;
};

}  // namespace tidesim::metrics
