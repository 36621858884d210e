#include "tidesim/sim/metrics/gpu_hours.hpp"

#include <algorithm>

namespace tidesim::metrics {

void GpuHoursCollector::release_all(Track& job, TimePoint at) {
  for (const auto& [pod, b] : job.pods) {
    gpu_seconds_ += to_seconds(at - b.since) * b.units;
  }
  job.pods.clear();
  job.oom_at.reset();
}

void GpuHoursCollector::on_job(const JobEvent& e) {
  switch (e.kind) {
    case JobEventKind::kBound: {
      Track& job = jobs_[e.job];
      if (job.oom_at && !job.pods.contains(e.pod)) {
        release_all(job, *job.oom_at);  // a new pod: the killed ones were deleted (Never)
      }
      // nvidia.com/gpu units, as gpu_hours_run counts them: none for a pod of a job that asks
      // for no whole GPU (a fractional share or a MIG slice), whose one card entry is a share.
      const int units = e.gpus > 0 ? static_cast<int>(e.cards.size()) : 0;
      seen_ = seen_ || units > 0;
      job.pods[e.pod] = Bound{e.at, units};
      break;
    }
    case JobEventKind::kStarted:
      if (const auto it = jobs_.find(e.job); it != jobs_.end()) {
        it->second.oom_at.reset();  // restarted in place (OnFailure): the pods stayed bound
      }
      break;
    case JobEventKind::kOomKilled:
      if (const auto it = jobs_.find(e.job); it != jobs_.end() && !it->second.oom_at) {
        it->second.oom_at = e.at;
      }
      break;
    case JobEventKind::kEvicted: {
      const auto it = jobs_.find(e.job);
      if (it == jobs_.end()) {
        break;
      }
      Track& job = it->second;
      if (const auto pod = job.pods.find(e.pod); pod != job.pods.end()) {
        job.oom_at.reset();  // evicted while held: it had stayed bound after a kill
        gpu_seconds_ += to_seconds(e.at - pod->second.since) * pod->second.units;
        job.pods.erase(pod);
      }
      break;
    }
    case JobEventKind::kSucceeded:
    case JobEventKind::kFailed:
      if (const auto it = jobs_.find(e.job); it != jobs_.end()) {
        release_all(it->second, e.at);
        jobs_.erase(it);
      }
      break;
    default:
      break;
  }
}

void GpuHoursCollector::finish(TimePoint end, MetricValues& out) const {
  if (!seen_) {
    return;
  }
  double total = gpu_seconds_;
  for (const auto& [name, job] : jobs_) {
    const TimePoint until = job.oom_at ? *job.oom_at : end;
    for (const auto& [pod, b] : job.pods) {
      total += to_seconds(std::max(until, b.since) - b.since) * b.units;
    }
  }
  out["gpu_hours_allocated"] = total / 3600.0;
}

}  // namespace tidesim::metrics
