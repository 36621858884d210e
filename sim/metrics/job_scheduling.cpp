#include "tidesim/sim/metrics/job_scheduling.hpp"

#include <numeric>

#include "tidesim/sim/engine/statistics.hpp"

namespace tidesim::metrics {

void JobSchedulingCollector::on_job(const JobEvent& event) {
  if (event.kind == JobEventKind::kEvicted && event.cause == "preemption") {
    seen_ = true;
    ++preemptions_;
    lost_gpu_s_ += event.lost_gpu_seconds;
  }
  if (event.kind == JobEventKind::kEvicted && event.cause == "suspension") {
    seen_ = true;
    suspension_lost_gpu_s_ += event.lost_gpu_seconds;
  }
  if (!event.gang) {
    return;
  }
  seen_ = true;
  switch (event.kind) {
    case JobEventKind::kSubmitted:
    case JobEventKind::kRestarted:
      gangs_[event.job] = {event.attempt, Attempt{event.at, std::nullopt}};
      break;
    case JobEventKind::kBound: {
      const auto it = gangs_.find(event.job);
      if (it != gangs_.end() && it->second.first == event.attempt) {
        it->second.second.last_bound = event.at;
      }
      break;
    }
    case JobEventKind::kStarted: {
      // The gang's pods are all bound (the job starts once they are). An in-place restart
      // (OnFailure) binds nothing: no wait.
      const auto it = gangs_.find(event.job);
      if (it != gangs_.end() && it->second.first == event.attempt && it->second.second.last_bound) {
        waits_.push_back(to_seconds(*it->second.second.last_bound - it->second.second.queued));
        it->second.second.last_bound.reset();
      }
      break;
    }
    default:
      break;
  }
}

void JobSchedulingCollector::finish(TimePoint /*end*/, MetricValues& out) const {
  if (!seen_) {
    return;
  }
  out["preemptions"] = static_cast<double>(preemptions_);
  out["preemption_lost_gpu_s"] = lost_gpu_s_;
  out["suspension_lost_gpu_s"] = suspension_lost_gpu_s_;
  out["gangs_bound"] = static_cast<double>(waits_.size());
  if (!waits_.empty()) {
    out["gang_wait_mean_s"] =
        std::accumulate(waits_.begin(), waits_.end(), 0.0) / static_cast<double>(waits_.size());
    out["gang_wait_p50_s"] = *quantile(waits_, 0.5);
    out["gang_wait_p99_s"] = *quantile(waits_, 0.99);
  }
}

}  // namespace tidesim::metrics
