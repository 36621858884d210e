#pragma once
/// Interruptions of jobs from outside (node failures, card errors, drains, migrations: kEvicted
/// events with their reason) and what they cost. One interruption is one job's attempt stopped
/// (all its evicted pods together). Metrics (docs/failures.md, docs/metrics.md):
///   interruptions, interruptions_<preemption|node_failure|card_failure|drain|migration>: counts
///     of stopped attempts;
///   jobs_interrupted, jobs_interrupted_<cause>: the jobs stopped at least once (by that cause):
///     jobs affected by cause, each job counted once per cause however often it was hit;
///   gpu_hours_lost: sum over interruptions of (running time since the job's last checkpoint x
///     its GPUs) / 3600;
///   gpu_hours_run: sum over attempts of (running time x GPUs) / 3600 (start to success, kill,
///     eviction or the end of the run);
///   goodput: 1 - gpu_hours_lost / gpu_hours_run (absent when nothing ran);
///   migration_gpu_hours_lost: the part of gpu_hours_lost lost to migrations (the descheduler);
///   migration_restart_gpu_hours: sum over migrated jobs' next attempts of (start - last bind) x
///     GPUs / 3600: the GPU time their new pods held before work resumed (pod startup and the
///     checkpoint restore);
///   migration_goodput_loss: (migration_gpu_hours_lost + migration_restart_gpu_hours) /
///     gpu_hours_run.
/// All absent when no job was interrupted; the migration_* ones when none was migrated.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

class InterruptionsCollector : public Collector {
 public:
  void on_job(const JobEvent& event) override;
  void finish(TimePoint end, MetricValues& out) const override;

 private:
  void stop_running(const std::string& job, TimePoint at);

  std::set<std::pair<std::string, int>> interrupted_;  // (job, attempt)
  std::map<std::string, int> by_reason_;
  std::map<std::string, std::set<std::string>> jobs_by_reason_;  // cause -> jobs hit
  double lost_gpu_seconds_ = 0.0;
  double run_gpu_seconds_ = 0.0;
  double migration_lost_gpu_seconds_ = 0.0;
  double migration_restart_gpu_seconds_ = 0.0;
  // Migrated jobs whose work has not resumed: job -> last bind of the new attempt (nullopt
  // before it).
  std::map<std::string, std::optional<TimePoint>> restarting_;
  // Running attempts: job -> (since, GPUs).
  std::map<std::string, std::pair<TimePoint, int>> running_;
};

}  // namespace tidesim::metrics
