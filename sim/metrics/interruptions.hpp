#pragma once
/// Interruptions of jobs from outside (node failures, card errors, drains, migrations,
/// preemptions, suspensions: kEvicted events with their reason), what they cost, and the goodput
/// of the GPU time run. One interruption is one job's attempt stopped (all its evicted pods
/// together). Metrics (docs/failures.md, docs/metrics.md):
///   interruptions, interruptions_<cause> (kInterruptionCauses): counts of stopped attempts;
///   jobs_interrupted, jobs_interrupted_<cause>: the jobs stopped at least once (by that cause):
///     jobs affected by cause, each job counted once per cause however often it was hit;
///   gpu_hours_run: sum over attempts of (running time x GPUs) / 3600 (start to success, kill,
///     eviction or the end of the run);
///   gpu_hours_lost: the GPU time whose work was thrown away, / 3600: for each interrupted or
///     OOM-killed attempt, its running time since the later of its start and the job's last
///     checkpoint x GPUs (the job resumes from that checkpoint: JobEvent::lost_gpu_seconds); for
///     a job that failed (backoffLimit), all of its GPU time run, whatever was checkpointed (its
///     work never produces a result);
///   gpu_hours_lost_failures: the part of gpu_hours_lost due to the job's own failures (OOM
///     kills, and the rest of a failed job's GPU time);
///   goodput: 1 - gpu_hours_lost / gpu_hours_run: the share of the GPU time run whose work was
///     kept (by a succeeded job, or by a job still running or waiting at the run's end);
///   migration_gpu_hours_lost: the part of gpu_hours_lost lost to migrations (the descheduler);
///   migration_restart_gpu_hours: sum over migrated jobs' next attempts of (start - last bind) x
///     GPUs / 3600: the GPU time their new pods held before work resumed (pod startup and the
///     checkpoint restore);
///   migration_goodput_loss: (migration_gpu_hours_lost + migration_restart_gpu_hours) /
///     gpu_hours_run.
/// The counts are absent when no job was interrupted; the GPU-hours and goodput when no GPU time
/// ran and nothing was interrupted (goodput also when no GPU time ran); the migration_* ones when
/// no job was migrated.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

class InterruptionsCollector : public Collector {
 public:
  void on_job(const JobEvent& event) override;
  void finish(TimePoint end, MetricValues& out) const override;

 private:
  // Ends `job`'s running attempt at `at`, adding its GPU time to the run; false when none ran.
  bool stop_running(const std::string& job, TimePoint at);
  // Counts `gpu_seconds` of `job`'s GPU time run as lost (`failure`: to its own failure).
  void lose(const std::string& job, double gpu_seconds, bool failure);

  std::set<std::pair<std::string, int>> interrupted_;  // (job, attempt)
  std::map<std::string, int> by_reason_;
  std::map<std::string, std::set<std::string>> jobs_by_reason_;  // cause -> jobs hit
  double lost_gpu_seconds_ = 0.0;
  double failure_lost_gpu_seconds_ = 0.0;
  double run_gpu_seconds_ = 0.0;
  // Per job: GPU-seconds run by its ended attempts, and the part of them counted lost. Hashed:
  // only looked up, never iterated, and it holds every job that ran.
  std::unordered_map<std::string, std::pair<double, double>> job_gpu_seconds_;
  double migration_lost_gpu_seconds_ = 0.0;
  double migration_restart_gpu_seconds_ = 0.0;
  // Migrated jobs whose work has not resumed: job -> last bind of the new attempt (nullopt
  // before it).
  std::map<std::string, std::optional<TimePoint>> restarting_;
  // Running attempts: job -> (since, GPUs).
  std::map<std::string, std::pair<TimePoint, int>> running_;
};

}  // namespace tidesim::metrics
