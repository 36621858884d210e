#include "sim/metrics/job_metrics.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "sim/engine/statistics.hpp"

namespace tidesim::metrics {

void JobMetricsCollector::on_job(const JobEvent& event) {
  Track& job = jobs_[event.job];
  switch (event.kind) {
    case JobEventKind::kSubmitted:
      if (!job.submitted) {
        job.submitted = event.at;
      }
      break;
    case JobEventKind::kBound:
      if (!job.first_bound) {
        job.first_bound = event.at;
      }
      break;
    case JobEventKind::kStarted:
      break;
    case JobEventKind::kOomKilled:
      ++oom_kills_;
      break;
    case JobEventKind::kEvicted:
      ++evictions_;
      break;
    case JobEventKind::kRestarted:
      ++restarts_;
      break;
    case JobEventKind::kSucceeded:
      job.succeeded = event.at;
      break;
    case JobEventKind::kFailed:
      job.failed = event.at;
      break;
  }
}

void JobMetricsCollector::finish(TimePoint end, MetricValues& out) const {
  std::vector<double> waits;
  std::vector<double> jcts;
  long submitted = 0;
  long unscheduled = 0;
  long succeeded = 0;
  long failed = 0;
  bool all_ended = true;
  std::optional<TimePoint> first_submit;
  std::optional<TimePoint> last_end;
  for (const auto& [name, job] : jobs_) {
    if (!job.submitted) {
      continue;  // events of a job whose submission was not seen: not a task of this run
    }
    ++submitted;
    first_submit = first_submit ? std::min(*first_submit, *job.submitted) : *job.submitted;
    if (job.first_bound) {
      waits.push_back(to_seconds(*job.first_bound - *job.submitted));
    } else {
      ++unscheduled;
    }
    const std::optional<TimePoint> ended = job.succeeded ? job.succeeded : job.failed;
    if (job.succeeded) {
      ++succeeded;
      jcts.push_back(to_seconds(*job.succeeded - *job.submitted));
    } else if (job.failed) {
      ++failed;
    }
    if (ended) {
      last_end = last_end ? std::max(*last_end, *ended) : *ended;
    } else {
      all_ended = false;
    }
  }

  out["jobs_submitted"] = static_cast<double>(submitted);
  out["succeeded_jobs"] = static_cast<double>(succeeded);
  out["failed_jobs"] = static_cast<double>(failed);
  out["unscheduled_jobs"] = static_cast<double>(unscheduled);
  out["oom_kills"] = static_cast<double>(oom_kills_);
  out["evictions"] = static_cast<double>(evictions_);
  out["restarts"] = static_cast<double>(restarts_);

  if (!waits.empty()) {
    out["mean_wait_s"] =
        std::accumulate(waits.begin(), waits.end(), 0.0) / static_cast<double>(waits.size());
    out["wait_p95_s"] = *quantile(waits, 0.95);
  }
  if (!jcts.empty()) {
    out["jct_mean_s"] =
        std::accumulate(jcts.begin(), jcts.end(), 0.0) / static_cast<double>(jcts.size());
    out["jct_p50_s"] = *quantile(jcts, 0.50);
    out["jct_p95_s"] = *quantile(jcts, 0.95);
    out["jct_p99_s"] = *quantile(jcts, 0.99);
  }
  if (first_submit) {
    std::optional<TimePoint> horizon;
    if (all_ended && last_end) {
      out["makespan_s"] = to_seconds(*last_end - *first_submit);
      horizon = last_end;
    } else {
      horizon = std::max(end, *first_submit);
    }
    const double hours = to_seconds(*horizon - *first_submit) / 3600.0;
    if (hours > 0.0) {
      out["throughput_jobs_per_hour"] = static_cast<double>(succeeded) / hours;
    }
  }
  if (submitted > 0) {
    const double rate = static_cast<double>(evictions_) / static_cast<double>(submitted);
    out["migration_rate"] = rate;
    out["migration_rate_alert"] = rate >= options_.migration_alert_threshold ? 1.0 : 0.0;
  }
}

}  // namespace tidesim::metrics
