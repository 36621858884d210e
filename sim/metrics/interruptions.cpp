#include "tidesim/sim/metrics/interruptions.hpp"

#include <algorithm>

#include "tidesim/sim/metrics/metric_names.hpp"

namespace tidesim::metrics {

void InterruptionsCollector::stop_running(const std::string& job, TimePoint at) {
  const auto it = running_.find(job);
  if (it != running_.end()) {
    run_gpu_seconds_ += to_seconds(at - it->second.first) * it->second.second;
    running_.erase(it);
  }
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
    case JobEventKind::kOomKilled:
    case JobEventKind::kFailed:
      stop_running(e.job, e.at);
      break;
    case JobEventKind::kEvicted:
      stop_running(e.job, e.at);
      if (interrupted_.emplace(e.job, e.attempt).second) {
        std::string reason = e.cause;
        std::replace(reason.begin(), reason.end(), '-', '_');
        ++by_reason_[reason];
        jobs_by_reason_[reason].insert(e.job);
      }
      lost_gpu_seconds_ += e.lost_gpu_seconds;
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
  if (by_reason_.empty()) {
    return;  // nothing was interrupted (runs without faults or a descheduler report nothing)
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
  double run = run_gpu_seconds_;
  for (const auto& [job, since] : running_) {
    run += to_seconds(end - since.first) * since.second;
  }
  out["gpu_hours_lost"] = lost_gpu_seconds_ / 3600.0;
  out["gpu_hours_run"] = run / 3600.0;
  if (run > 0.0) {
    out["goodput"] = 1.0 - lost_gpu_seconds_ / run;
  }
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
