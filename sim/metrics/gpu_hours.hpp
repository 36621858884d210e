#pragma once
/// GPU-hours allocated to jobs: the device-plugin units of bound pods x the time they were bound
/// (docs/metrics.md, "GPU time"). gpu_hours_run and gpu_hours_lost (interruptions.hpp) count
/// the running part and its lost work; this counts every bound moment, running or not.
#include <map>
#include <optional>
#include <string>

#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

/// From JobEvent signals. Produces gpu_hours_allocated = sum over pods of (units x (release -
/// bind)) / 3600, units = the pod's kBound cards (one entry per nvidia.com/gpu unit; 0 for the
/// pods of a job that asks for no whole GPU: fractional shares, MIG slices), from its
/// kBound to its release: its kEvicted, the job's kSucceeded or kFailed, or the run's end. A pod
/// OOM-killed stays bound when its container restarts in place (restartPolicy OnFailure) and is
/// deleted at the kill otherwise (Never); the events tell which only later: the pods are taken as
/// released at the kill when the job next binds a new pod, or the run ends first, and as held
/// when the job starts again without one or one of them is evicted. Absent when no pod with GPU
/// units was bound.
class GpuHoursCollector : public Collector {
 public:
  void on_job(const JobEvent& event) override;
  void finish(TimePoint end, MetricValues& out) const override;

 private:
  struct Bound {
    TimePoint since{};
    int units = 0;
  };
  struct Track {
    std::map<std::string, Bound, std::less<>> pods;
    // An OOM kill whose pods' fate (deleted or restarted in place) is not known yet.
    std::optional<TimePoint> oom_at;
  };
  // Releases every bound pod of `job` at `at`.
  void release_all(Track& job, TimePoint at);
  std::map<std::string, Track, std::less<>> jobs_;
  double gpu_seconds_ = 0.0;
  bool seen_ = false;
};

}  // namespace tidesim::metrics
