#include "tidesim/sim/metrics/job_metrics.hpp"

#include <algorithm>
#include <numeric>
#include <string_view>
#include <vector>

#include "tidesim/sim/engine/statistics.hpp"

namespace tidesim::metrics {
namespace {

double mean_of(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

}  // namespace

std::optional<double> kaplan_meier_median(std::vector<SurvivalTime> times) {
  // Events before censorings at equal times: a job censored at t was still at risk at t.
  std::sort(times.begin(), times.end(), [](const SurvivalTime& a, const SurvivalTime& b) {
    return a.seconds != b.seconds ? a.seconds < b.seconds : a.observed > b.observed;
  });
  double survival = 1.0;
  std::size_t i = 0;
  while (i < times.size()) {
    const double t = times[i].seconds;
    const auto at_risk = static_cast<double>(times.size() - i);
    long events = 0;
    std::size_t k = i;
    for (; k < times.size() && times[k].seconds == t; ++k) {
      if (times[k].observed) {
        ++events;
      }
    }
    if (events > 0) {
      survival *= 1.0 - static_cast<double>(events) / at_risk;
      if (survival <= 0.5) {
        return t;
      }
    }
    i = k;
  }
  return std::nullopt;
}

double JobMetricsCollector::pending_seconds(const Track& job, TimePoint end) {
  double total = 0.0;
  for (const auto& [index, attempt] : job.attempts) {
    if (!attempt.queued) {
      continue;
    }
    if (attempt.started && !attempt.last_bound) {
      continue;  // restarted in place (OnFailure): its pods kept their cards and never queued
    }
    // A started attempt waited until its last pod was bound; one that never started (its pods
    // still queued, or some bound and others not) waits until the run's end.
    const TimePoint until = attempt.started ? *attempt.last_bound : std::max(end, *attempt.queued);
    total += to_seconds(until - *attempt.queued);
  }
  return total;
}

void JobMetricsCollector::on_job(const JobEvent& event) {
  if (options_.window) {
    if (event.kind == JobEventKind::kSubmitted && !track_by_name_.contains(event.job) &&
        !outside_.contains(event.job)) {
      const long n = submitted_++;
      if (n < options_.window->first || n > options_.window->second) {
        outside_.insert(event.job);
      }
    }
    if (outside_.contains(event.job)) {
      return;
    }
  }
  auto [found, inserted] = track_by_name_.try_emplace(event.job, nullptr);
  if (inserted) {
    found->second = &jobs_[event.job];
  }
  Track& job = *found->second;
  switch (event.kind) {
    case JobEventKind::kSubmitted:
      if (!job.submitted) {
        job.submitted = event.at;
        job.attempts[event.attempt].queued = event.at;
        job.deadline_s = event.facts != nullptr ? event.facts->deadline_s : 0.0;
      }
      break;
    case JobEventKind::kBound:
      if (!job.first_bound) {
        job.first_bound = event.at;
      }
      job.attempts[event.attempt].last_bound = event.at;
      break;
    case JobEventKind::kStarted:
      job.attempts[event.attempt].started = event.at;
      break;
    case JobEventKind::kOomKilled:
      ++oom_kills_;
      ++job.oom_kills;
      break;
    case JobEventKind::kEvicted:
      ++evictions_;
      stopped_[event.cause].emplace(event.job, event.attempt);
      break;
    case JobEventKind::kRestarted:
      ++restarts_;
      // New pods are queued here, unless the attempt restarts in place (OnFailure): then it
      // starts without any bind, which pending_seconds() recognises.
      job.attempts[event.attempt].queued = event.at;
      break;
    case JobEventKind::kSucceeded:
      job.succeeded = event.at;
      break;
    case JobEventKind::kFailed:
      job.failed = event.at;
      break;
  }
}

namespace {

// makespan_s (first submit -> last job ended, when every job ended: `last_end`) and the
// throughput of successes over that span, or over first submit -> the run's end.
void makespan_and_throughput(TimePoint first_submit, std::optional<TimePoint> last_end,
                             TimePoint end, long succeeded, MetricValues& out) {
  TimePoint horizon = std::max(end, first_submit);
  if (last_end) {
    out["makespan_s"] = to_seconds(*last_end - first_submit);
    horizon = *last_end;
  }
  const double hours = to_seconds(horizon - first_submit) / 3600.0;
  if (hours > 0.0) {
    out["throughput_jobs_per_hour"] = static_cast<double>(succeeded) / hours;
  }
}

}  // namespace

void JobMetricsCollector::finish(TimePoint end, MetricValues& out) const {
  std::vector<double> waits;
  std::vector<double> pendings;
  std::vector<double> start_waits;
  std::vector<double> jcts;
  std::vector<SurvivalTime> survival;
  long oom_jobs = 0;
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
      pendings.push_back(pending_seconds(job, end));
    } else {
      ++unscheduled;
    }
    if (job.oom_kills > 0) {
      ++oom_jobs;
    }
    // The start of the job's latest attempt (the one that ended it, or its current one); the
    // run's end when it has not started (censored).
    const Attempt& latest = job.attempts.rbegin()->second;
    const TimePoint start = latest.started ? *latest.started : std::max(end, *job.submitted);
    start_waits.push_back(to_seconds(start - *job.submitted));
    const std::optional<TimePoint> ended = job.succeeded ? job.succeeded : job.failed;
    if (job.succeeded) {
      ++succeeded;
      jcts.push_back(to_seconds(*job.succeeded - *job.submitted));
      survival.push_back({jcts.back(), true});
    } else {
      if (job.failed) {
        ++failed;
      }
      const TimePoint censored = job.failed ? *job.failed : std::max(end, *job.submitted);
      survival.push_back({to_seconds(censored - *job.submitted), false});
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
  out["oom_jobs"] = static_cast<double>(oom_jobs);
  out["censored_jobs"] = static_cast<double>(submitted - succeeded);

  if (!waits.empty()) {
    out["mean_wait_s"] =
        std::accumulate(waits.begin(), waits.end(), 0.0) / static_cast<double>(waits.size());
    out["wait_p95_s"] = *quantile(waits, 0.95);
    out["pending_total_mean_s"] = mean_of(pendings);
  }
  if (!start_waits.empty()) {
    out["start_wait_mean_s"] = mean_of(start_waits);
  }
  if (const auto median = kaplan_meier_median(std::move(survival))) {
    out["jct_km_p50_s"] = *median;
  }
  if (!jcts.empty()) {
    out["jct_mean_s"] =
        std::accumulate(jcts.begin(), jcts.end(), 0.0) / static_cast<double>(jcts.size());
    out["jct_p50_s"] = *quantile(jcts, 0.50);
    out["jct_p95_s"] = *quantile(jcts, 0.95);
    out["jct_p99_s"] = *quantile(jcts, 0.99);
  }
  if (first_submit) {
    makespan_and_throughput(*first_submit, all_ended ? last_end : std::nullopt, end, succeeded,
                            out);
  }
  if (submitted > 0) {
    stop_rates(submitted, out);
  }
  deadline_metrics(out);
}

void JobMetricsCollector::deadline_metrics(MetricValues& out) const {
  long with_deadline = 0;
  long missed = 0;
  for (const auto& [name, job] : jobs_) {
    if (!job.submitted || !(job.deadline_s > 0.0)) {
      continue;
    }
    ++with_deadline;
    if (!job.succeeded || to_seconds(*job.succeeded - *job.submitted) > job.deadline_s) {
      ++missed;
    }
  }
  if (with_deadline > 0) {
    out["slo_jobs"] = static_cast<double>(with_deadline);
    out["slo_violations"] = static_cast<double>(missed);
    out["slo_violation_share"] = static_cast<double>(missed) / static_cast<double>(with_deadline);
  }
}

void JobMetricsCollector::stop_rates(long submitted, MetricValues& out) const {
  const auto rate = [&](std::string_view cause) {
    const auto it = stopped_.find(cause);
    const auto n = it == stopped_.end() ? 0 : it->second.size();
    return static_cast<double>(n) / static_cast<double>(submitted);
  };
  const double migration = rate("migration");
  out["migration_rate"] = migration;
  out["migration_rate_alert"] = migration >= options_.migration_alert_threshold ? 1.0 : 0.0;
  out["preemption_rate"] = rate("preemption");
  out["suspension_rate"] = rate("suspension");
}

}  // namespace tidesim::metrics
