#include "tidesim/sim/metrics/interruptions.hpp"

#include <algorithm>

#include "tidesim/sim/metrics/metric_names.hpp"

namespace tidesim::metrics {

bool InterruptionsCollector::stop_running(const std::string& job, TimePoint at) {
  const auto it = running_.find(job);
  if (it == running_.end()) {
    return false;
  }
  const double gpu_seconds = to_seconds(at - it->second.first) * it->second.second;
  run_gpu_seconds_ += gpu_seconds;
  job_gpu_seconds_[job].first += gpu_seconds;
  running_.erase(it);
  return true;
}

void InterruptionsCollector::lose(const std::string& job, double gpu_seconds, bool failure) {
  lost_gpu_seconds_ += gpu_seconds;
  if (failure) {
    failure_lost_gpu_seconds_ += gpu_seconds;
  }
  job_gpu_seconds_[job].second += gpu_seconds;
}

void InterruptionsCollector::on_job(const JobEvent& e) {
  switch (e.kind) {
    case JobEventKind::kStarted:
      running_[e.job] = {e.at, e.gpus};
      if (const auto it = restarting_.find(e.job); it != restarting_.end()) {
        if (it->second) {
          migration_restart_gpu_seconds_ += to_seconds(e.at - *it->second) * e.gpus;
        }
        restarting_.erase(it);
      }
      break;
    case JobEventKind::kBound:
      if (const auto it = restarting_.find(e.job); it != restarting_.end()) {
        it->second = e.at;
      }
      break;
    case JobEventKind::kSucceeded:
      stop_running(e.job, e.at);
      break;
    case JobEventKind::kOomKilled:
      // The job resumes from its last checkpoint: the work since then is lost.
      if (stop_running(e.job, e.at)) {
        lose(e.job, e.lost_gpu_seconds, true);
      }
      break;
    case JobEventKind::kFailed: {
      // The job will never produce its result: the rest of its GPU time is lost too.
      stop_running(e.job, e.at);
      const auto [run, lost] = job_gpu_seconds_[e.job];
      lose(e.job, std::max(0.0, run - lost), true);
      break;
    }
    case JobEventKind::kEvicted:
      stop_running(e.job, e.at);
      if (interrupted_.emplace(e.job, e.attempt).second) {
        std::string reason = e.cause;
        std::replace(reason.begin(), reason.end(), '-', '_');
        ++by_reason_[reason];
        jobs_by_reason_[reason].insert(e.job);
      }
      lose(e.job, e.lost_gpu_seconds, false);
      if (e.cause == "migration") {
        migration_lost_gpu_seconds_ += e.lost_gpu_seconds;
        restarting_[e.job] = std::nullopt;
      } else {
        restarting_.erase(e.job);  // a failure's restart pays no restore here
      }
      break;
    default:
      break;
  }
}

void InterruptionsCollector::finish(TimePoint end, MetricValues& out) const {
  double run = run_gpu_seconds_;
  for (const auto& [job, since] : running_) {
    run += to_seconds(end - since.first) * since.second;
  }
  if (run > 0.0 || !by_reason_.empty()) {
    out["gpu_hours_lost"] = lost_gpu_seconds_ / 3600.0;
    out["gpu_hours_lost_failures"] = failure_lost_gpu_seconds_ / 3600.0;
    out["gpu_hours_run"] = run / 3600.0;
  }
  if (run > 0.0) {
    out["goodput"] = 1.0 - lost_gpu_seconds_ / run;
  }
  if (by_reason_.empty()) {
    return;  // nothing was interrupted (runs without faults, preemption or a descheduler)
  }
  int total = 0;
  std::set<std::string> jobs;
  for (const std::string_view cause : kInterruptionCauses) {
    const std::string reason(cause);
    const auto it = by_reason_.find(reason);
    const int n = it == by_reason_.end() ? 0 : it->second;
    out[interruptions_metric(cause)] = n;
    total += n;
    const auto hit = jobs_by_reason_.find(reason);
    const auto distinct = hit == jobs_by_reason_.end() ? 0 : hit->second.size();
    out[jobs_interrupted_metric(cause)] = static_cast<double>(distinct);
    if (hit != jobs_by_reason_.end()) {
      jobs.insert(hit->second.begin(), hit->second.end());
    }
  }
  out["interruptions"] = total;
  out["jobs_interrupted"] = static_cast<double>(jobs.size());
  if (by_reason_.contains("migration")) {
    out["migration_gpu_hours_lost"] = migration_lost_gpu_seconds_ / 3600.0;
    out["migration_restart_gpu_hours"] = migration_restart_gpu_seconds_ / 3600.0;
    if (run > 0.0) {
      out["migration_goodput_loss"] =
          (migration_lost_gpu_seconds_ + migration_restart_gpu_seconds_) / run;
    }
  }
}

}  // namespace tidesim::metrics
