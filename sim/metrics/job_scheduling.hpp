#pragma once
/// Metrics of job-level scheduling: preemptions, the work they threw away, and gang waits
/// (docs/job-scheduling.md, docs/metrics.md).
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

/// From JobEvent signals. Produces, only for a run that had a gang job, a preemption or a
/// suspension (absent otherwise, so runs without any keep their results):
/// - preemptions: pods evicted by scheduler preemption (kEvicted with cause "preemption");
/// - preemption_lost_gpu_s: the GPU-seconds those stops threw away (JobEvent::lost_gpu_seconds:
///   running time since the later of the attempt's start and its last checkpoint, x GPUs);
/// - suspension_lost_gpu_s: the same for the job-level admission policy's suspensions (cause
///   "suspension"; their count is interruptions_suspension, InterruptionsCollector);
/// - gang_wait_mean_s, gang_wait_p50_s, gang_wait_p99_s: over each attempt of a gang job whose
///   pods all bound, from the attempt's pods entering the queue (kSubmitted, or kRestarted for
///   a new attempt) to the last kBound of the attempt; gangs_bound: how many such attempts.
class JobSchedulingCollector : public Collector {
 public:
  void on_job(const JobEvent& event) override;
  void finish(TimePoint end, MetricValues& out) const override;

 private:
  struct Attempt {
    TimePoint queued{};
    std::optional<TimePoint> last_bound;
  };
  bool seen_ = false;
  long preemptions_ = 0;
  double lost_gpu_s_ = 0.0;
  double suspension_lost_gpu_s_ = 0.0;
  // Per gang job: its current attempt; and the gang waits of attempts that started.
  std::map<std::string, std::pair<int, Attempt>, std::less<>> gangs_;
  std::vector<double> waits_;
};

}  // namespace tidesim::metrics
