#include "tidesim/sim/metrics/catalog.hpp"

#include <array>

namespace tidesim::metrics {
namespace {

using enum Unit;
constexpr Direction kLower = Direction::kLowerIsBetter;
constexpr Direction kHigher = Direction::kHigherIsBetter;
constexpr Direction kNeutral = Direction::kNeutral;

constexpr std::array kCatalog{
    // The seed's four.
    MetricInfo{"gpu_util_stddev", kRatio, kLower, "GPU util std-dev",
               "time-weighted mean of the per-sample population std-dev across nodes of node GPU "
               "utilisation"},
    MetricInfo{"mean_wait_s", kSeconds, kLower, "mean task wait",
               "mean over jobs bound at least once of submit -> first bind"},
    MetricInfo{"oom_kills", kCount, kLower, "GPU OOM kills", "GPU-memory OOM kill events"},
    MetricInfo{"nvlink_contention_rate", kRatio, kLower, "NVLink contention rate",
               "share of NVLink-requiring job running time with collective bandwidth < 90% of "
               "ideal"},
    // Other readings of the seed's four (docs/metrics.md).
    MetricInfo{"gpu_util_stddev_busy", kRatio, kLower, "GPU util std-dev (busy)",
               "time-weighted mean of the cross-node std-dev of GPU utilisation over the samples "
               "with pending pods"},
    MetricInfo{"gpu_util_stddev_node_avg", kRatio, kLower, "GPU util std-dev (node avg)",
               "population std-dev across nodes of each node's time-averaged GPU utilisation"},
    MetricInfo{"pending_total_mean_s", kSeconds, kLower, "pending, all attempts",
               "mean over jobs bound at least once of the time in the queue summed over attempts"},
    MetricInfo{"start_wait_mean_s", kSeconds, kLower, "wait to successful start",
               "mean over succeeded jobs of submit -> start of the attempt that succeeded"},
    MetricInfo{"oom_jobs", kCount, kLower, "jobs OOM-killed", "jobs with at least one OOM kill"},
    MetricInfo{"nvlink_contended_jobs_share", kRatio, kLower, "NVLink jobs contended",
               "share of NVLink-requiring multi-GPU jobs contended for more than half their "
               "running time"},
    // The seed's health indicators.
    MetricInfo{"lscs_mean", kRatio, kLower, "LSCS mean",
               "time-weighted mean of the trailing 5-min mean of the cross-node std-dev of GPU "
               "memory utilisation"},
    MetricInfo{"lscs_max", kRatio, kLower, "LSCS max", "largest LSCS value"},
    MetricInfo{"lscs_time_above_share", kRatio, kLower, "LSCS > 15% time",
               "share of time LSCS is above 15%"},
    MetricInfo{"lscs_longest_above_s", kSeconds, kLower, "LSCS > 15% longest",
               "longest stretch with LSCS above 15%"},
    MetricInfo{"lscs_alert", kFlag, kLower, "LSCS alert",
               "1 when LSCS stayed above 15% for 10 min or longer"},
    MetricInfo{"migration_rate", kRatio, kLower, "task migration rate",
               "evictions / jobs submitted (healthy < 0.5%)"},
    MetricInfo{"migration_rate_alert", kFlag, kLower, "migration alert",
               "1 when the migration rate is 0.5% or more"},
    MetricInfo{"nvlink_variance_mean", kPlain, kLower, "NVLink variance mean",
               "time-weighted mean over nodes of the variance across a node's GPUs of NVLink "
               "utilisation"},
    MetricInfo{"nvlink_variance_max", kPlain, kLower, "NVLink variance max",
               "largest per-node NVLink variance"},
    MetricInfo{"nvlink_variance_alert_share", kRatio, kLower, "NVLink var > 0.02",
               "share of node-time with NVLink variance above 0.02"},
    MetricInfo{"nvlink_variance_alert", kFlag, kLower, "NVLink variance alert",
               "1 when any node's NVLink variance exceeded 0.02"},
    // Job timing.
    MetricInfo{"wait_p95_s", kSeconds, kLower, "wait p95",
               "95th percentile of submit -> first bind"},
    MetricInfo{"jct_mean_s", kSeconds, kLower, "JCT mean",
               "mean job completion time (submit -> success)"},
    MetricInfo{"jct_p50_s", kSeconds, kLower, "JCT p50", "median job completion time"},
    MetricInfo{"jct_p95_s", kSeconds, kLower, "JCT p95", "95th percentile job completion time"},
    MetricInfo{"jct_p99_s", kSeconds, kLower, "JCT p99", "99th percentile job completion time"},
    MetricInfo{"jct_km_p50_s", kSeconds, kLower, "JCT p50 (KM)",
               "Kaplan-Meier median of submit -> success, failed and unfinished jobs censored"},
    MetricInfo{"makespan_s", kSeconds, kLower, "makespan",
               "first submit -> last job finished (absent while a job is unfinished)"},
    MetricInfo{"throughput_jobs_per_hour", kPerHour, kHigher, "throughput",
               "succeeded jobs per simulated hour"},
    // Cluster state.
    MetricInfo{"gpu_util_mean", kRatio, kNeutral, "GPU util mean",
               "time-weighted mean of the mean node GPU utilisation"},
    MetricInfo{"gpu_allocation_rate", kRatio, kHigher, "GPU allocation rate",
               "time-weighted allocated / allocatable GPU units"},
    MetricInfo{"gpu_frag_rate", kRatio, kLower, "GPU fragmentation rate",
               "FGD fragmentation: fragmented / unallocated GPU units, time-weighted"},
    MetricInfo{"gpu_frag_gpus", kGpus, kLower, "GPU fragmentation",
               "FGD fragmentation: expected unallocated GPU units the typical task cannot use"},
    MetricInfo{"queue_length_mean", kCount, kLower, "queue length mean",
               "time-weighted mean of pending pods"},
    MetricInfo{"queue_length_max", kCount, kLower, "queue length max", "largest pending pods"},
    // Counts.
    MetricInfo{"jobs_submitted", kCount, kNeutral, "jobs submitted", "jobs submitted"},
    MetricInfo{"succeeded_jobs", kCount, kHigher, "jobs succeeded",
               "jobs that finished their work"},
    MetricInfo{"failed_jobs", kCount, kLower, "jobs failed", "jobs that exceeded backoffLimit"},
    MetricInfo{"censored_jobs", kCount, kLower, "jobs censored",
               "jobs without a success (failed or unfinished): censored in the KM JCT"},
    MetricInfo{"unscheduled_jobs", kCount, kLower, "jobs never bound",
               "jobs submitted but never bound by the end"},
    MetricInfo{"evictions", kCount, kLower, "evictions", "pod eviction events"},
    // Job-level scheduling (only in runs with gangs or preemptions).
    MetricInfo{"preemptions", kCount, kLower, "preemptions", "job attempts stopped by preemption"},
    MetricInfo{"preemption_lost_gpu_s", kSeconds, kLower, "GPU-time lost to preemption",
               "GPU-seconds of work since the last checkpoint thrown away by preemptions"},
    MetricInfo{"gangs_bound", kCount, kNeutral, "gangs bound",
               "attempts of gang jobs whose pods all bound"},
    MetricInfo{"gang_wait_mean_s", kSeconds, kLower, "gang wait mean",
               "mean of a gang's pods queued -> the whole gang bound"},
    MetricInfo{"gang_wait_p50_s", kSeconds, kLower, "gang wait p50", "median gang wait"},
    MetricInfo{"gang_wait_p99_s", kSeconds, kLower, "gang wait p99", "99th percentile gang wait"},
    MetricInfo{"restarts", kCount, kLower, "restarts", "pods re-created by the Job controller"},
    MetricInfo{"fallback_activations", kCount, kLower, "fallback activations",
               "times the scheduler entered the metrics fallback"},
    MetricInfo{"fallback_cycles", kCount, kLower, "fallback cycles",
               "scheduling cycles that used fallback stage 1 or 2"},
    MetricInfo{"fallback_stage2_cycles", kCount, kLower, "fallback stage-2 cycles",
               "scheduling cycles pinned to the golden node pool"},
    MetricInfo{"scheduling_cycles", kCount, kNeutral, "scheduling cycles", "scheduling cycles run"},
    MetricInfo{"unschedulable_cycles", kCount, kNeutral, "unschedulable cycles",
               "scheduling cycles that found no node"},
    // Queues and quotas, one per ClusterQueue: "<name>/<queue>" (only in runs with queues:).
    MetricInfo{"quota_utilisation", kRatio, kNeutral, "quota utilisation",
               "time-averaged admitted GPUs of the ClusterQueue over its nominal quota"},
    MetricInfo{"quota_borrowed_share", kRatio, kNeutral, "quota borrowed share",
               "share of the ClusterQueue's admitted GPU-time above its nominal quota"},
    MetricInfo{"queue_wait_mean_s", kSeconds, kLower, "queue wait mean",
               "mean time from a job's submission to its first admission, per ClusterQueue"},
    MetricInfo{"queue_wait_p99_s", kSeconds, kLower, "queue wait p99",
               "99th percentile time from submission to first admission, per ClusterQueue"},
    MetricInfo{"queue_admitted", kCount, kNeutral, "jobs admitted",
               "jobs of the ClusterQueue admitted at least once"},
    // Interruptions (the scenario's faults: section, preemption; docs/failures.md). Absent when
    // none.
    MetricInfo{"interruptions", kCount, kLower, "interruptions",
               "job attempts stopped from outside (preemptions, failures, drains, migrations)"},
    MetricInfo{"interruptions_preemption", kCount, kLower, "preemption interruptions",
               "job attempts stopped by a preemption"},
    MetricInfo{"interruptions_node_failure", kCount, kLower, "node-failure interruptions",
               "job attempts stopped by a node failure"},
    MetricInfo{"interruptions_card_failure", kCount, kLower, "card-error interruptions",
               "job attempts stopped by an XID-style card error"},
    MetricInfo{"interruptions_drain", kCount, kLower, "drain interruptions",
               "job attempts stopped by a planned drain"},
    MetricInfo{"interruptions_migration", kCount, kLower, "migrations",
               "job attempts stopped by the descheduler to run elsewhere"},
    MetricInfo{"jobs_interrupted", kCount, kLower, "jobs interrupted",
               "jobs stopped from outside at least once"},
    MetricInfo{"jobs_interrupted_preemption", kCount, kLower, "jobs preempted",
               "jobs stopped by a preemption at least once"},
    MetricInfo{"jobs_interrupted_node_failure", kCount, kLower, "jobs hit by node failures",
               "jobs stopped by a node failure at least once"},
    MetricInfo{"jobs_interrupted_card_failure", kCount, kLower, "jobs hit by card errors",
               "jobs stopped by an XID-style card error at least once"},
    MetricInfo{"jobs_interrupted_drain", kCount, kLower, "jobs hit by drains",
               "jobs stopped by a planned drain at least once"},
    MetricInfo{"jobs_interrupted_migration", kCount, kLower, "jobs migrated",
               "jobs stopped by the descheduler at least once"},
    MetricInfo{"gpu_hours_lost", kPlain, kLower, "GPU-hours lost",
               "GPU-hours run since the last checkpoint by interrupted attempts"},
    MetricInfo{"gpu_hours_run", kPlain, kNeutral, "GPU-hours run", "GPU-hours of running attempts"},
    MetricInfo{"goodput", kRatio, kHigher, "goodput",
               "1 - GPU-hours lost to interruptions / GPU-hours run"},
    // Migrations (the scenario's descheduler: section; docs/descheduling.md). Absent when none.
    MetricInfo{"migration_gpu_hours_lost", kPlain, kLower, "GPU-hours lost to migrations",
               "GPU-hours run since the last checkpoint by migrated attempts"},
    MetricInfo{"migration_restart_gpu_hours", kPlain, kLower, "GPU-hours restarting migrations",
               "GPU-hours migrated jobs' new pods held before work resumed (startup, restore)"},
    MetricInfo{"migration_goodput_loss", kRatio, kLower, "goodput lost to migrations",
               "(migration GPU-hours lost + restarting) / GPU-hours run"},
    // Load prediction accuracy (the scenario's prediction: section; docs/prediction.md).
    MetricInfo{"forecast_last_gpu_memory_mae", kRatio, kLower, "last GPU mem MAE",
               "mean absolute error of the last scraped value forecast of per-card GPU memory "
               "utilisation"},
    MetricInfo{"forecast_last_gpu_memory_mape", kRatio, kLower, "last GPU mem MAPE",
               "mean absolute percentage error of the last scraped value forecast of per-card GPU "
               "memory utilisation (true value not 0)"},
    MetricInfo{
        "forecast_last_gpu_util_mae", kRatio, kLower, "last GPU util MAE",
        "mean absolute error of the last scraped value forecast of per-card GPU utilisation"},
    MetricInfo{"forecast_last_gpu_util_mape", kRatio, kLower, "last GPU util MAPE",
               "mean absolute percentage error of the last scraped value forecast of per-card GPU "
               "utilisation (true value not 0)"},
    MetricInfo{"forecast_last_nvlink_mae", kPlain, kLower, "last NVLink idx MAE",
               "mean absolute error of the last scraped value forecast of per-node NVLink "
               "competition index"},
    MetricInfo{"forecast_last_nvlink_mape", kRatio, kLower, "last NVLink idx MAPE",
               "mean absolute percentage error of the last scraped value forecast of per-node "
               "NVLink competition index (true value not 0)"},
    MetricInfo{
        "forecast_last_io_await_mae", kPlain, kLower, "last IO await ms MAE",
        "mean absolute error of the last scraped value forecast of per-node storage await (ms)"},
    MetricInfo{"forecast_last_io_await_mape", kRatio, kLower, "last IO await ms MAPE",
               "mean absolute percentage error of the last scraped value forecast of per-node "
               "storage await (ms) (true value not 0)"},
    MetricInfo{"forecast_ewma_gpu_memory_mae", kRatio, kLower, "ewma GPU mem MAE",
               "mean absolute error of the EWMA forecast of per-card GPU memory utilisation"},
    MetricInfo{"forecast_ewma_gpu_memory_mape", kRatio, kLower, "ewma GPU mem MAPE",
               "mean absolute percentage error of the EWMA forecast of per-card GPU memory "
               "utilisation (true value not 0)"},
    MetricInfo{"forecast_ewma_gpu_util_mae", kRatio, kLower, "ewma GPU util MAE",
               "mean absolute error of the EWMA forecast of per-card GPU utilisation"},
    MetricInfo{"forecast_ewma_gpu_util_mape", kRatio, kLower, "ewma GPU util MAPE",
               "mean absolute percentage error of the EWMA forecast of per-card GPU utilisation "
               "(true value not 0)"},
    MetricInfo{"forecast_ewma_nvlink_mae", kPlain, kLower, "ewma NVLink idx MAE",
               "mean absolute error of the EWMA forecast of per-node NVLink competition index"},
    MetricInfo{"forecast_ewma_nvlink_mape", kRatio, kLower, "ewma NVLink idx MAPE",
               "mean absolute percentage error of the EWMA forecast of per-node NVLink competition "
               "index (true value not 0)"},
    MetricInfo{"forecast_ewma_io_await_mae", kPlain, kLower, "ewma IO await ms MAE",
               "mean absolute error of the EWMA forecast of per-node storage await (ms)"},
    MetricInfo{"forecast_ewma_io_await_mape", kRatio, kLower, "ewma IO await ms MAPE",
               "mean absolute percentage error of the EWMA forecast of per-node storage await (ms) "
               "(true value not 0)"},
    MetricInfo{"forecast_holt_gpu_memory_mae", kRatio, kLower, "holt GPU mem MAE",
               "mean absolute error of the Holt's linear trend forecast of per-card GPU memory "
               "utilisation"},
    MetricInfo{"forecast_holt_gpu_memory_mape", kRatio, kLower, "holt GPU mem MAPE",
               "mean absolute percentage error of the Holt's linear trend forecast of per-card GPU "
               "memory utilisation (true value not 0)"},
    MetricInfo{
        "forecast_holt_gpu_util_mae", kRatio, kLower, "holt GPU util MAE",
        "mean absolute error of the Holt's linear trend forecast of per-card GPU utilisation"},
    MetricInfo{"forecast_holt_gpu_util_mape", kRatio, kLower, "holt GPU util MAPE",
               "mean absolute percentage error of the Holt's linear trend forecast of per-card GPU "
               "utilisation (true value not 0)"},
    MetricInfo{"forecast_holt_nvlink_mae", kPlain, kLower, "holt NVLink idx MAE",
               "mean absolute error of the Holt's linear trend forecast of per-node NVLink "
               "competition index"},
    MetricInfo{"forecast_holt_nvlink_mape", kRatio, kLower, "holt NVLink idx MAPE",
               "mean absolute percentage error of the Holt's linear trend forecast of per-node "
               "NVLink competition index (true value not 0)"},
    MetricInfo{
        "forecast_holt_io_await_mae", kPlain, kLower, "holt IO await ms MAE",
        "mean absolute error of the Holt's linear trend forecast of per-node storage await (ms)"},
    MetricInfo{"forecast_holt_io_await_mape", kRatio, kLower, "holt IO await ms MAPE",
               "mean absolute percentage error of the Holt's linear trend forecast of per-node "
               "storage await (ms) (true value not 0)"},
    MetricInfo{"forecast_ar_gpu_memory_mae", kRatio, kLower, "ar GPU mem MAE",
               "mean absolute error of the AR(p) forecast of per-card GPU memory utilisation"},
    MetricInfo{"forecast_ar_gpu_memory_mape", kRatio, kLower, "ar GPU mem MAPE",
               "mean absolute percentage error of the AR(p) forecast of per-card GPU memory "
               "utilisation (true value not 0)"},
    MetricInfo{"forecast_ar_gpu_util_mae", kRatio, kLower, "ar GPU util MAE",
               "mean absolute error of the AR(p) forecast of per-card GPU utilisation"},
    MetricInfo{"forecast_ar_gpu_util_mape", kRatio, kLower, "ar GPU util MAPE",
               "mean absolute percentage error of the AR(p) forecast of per-card GPU utilisation "
               "(true value not 0)"},
    MetricInfo{"forecast_ar_nvlink_mae", kPlain, kLower, "ar NVLink idx MAE",
               "mean absolute error of the AR(p) forecast of per-node NVLink competition index"},
    MetricInfo{"forecast_ar_nvlink_mape", kRatio, kLower, "ar NVLink idx MAPE",
               "mean absolute percentage error of the AR(p) forecast of per-node NVLink "
               "competition index (true value not 0)"},
    MetricInfo{"forecast_ar_io_await_mae", kPlain, kLower, "ar IO await ms MAE",
               "mean absolute error of the AR(p) forecast of per-node storage await (ms)"},
    MetricInfo{"forecast_ar_io_await_mape", kRatio, kLower, "ar IO await ms MAPE",
               "mean absolute percentage error of the AR(p) forecast of per-node storage await "
               "(ms) (true value not 0)"},
    MetricInfo{"forecast_job_aware_gpu_memory_mae", kRatio, kLower, "job_aware GPU mem MAE",
               "mean absolute error of the job-aware forecast of per-card GPU memory utilisation"},
    MetricInfo{"forecast_job_aware_gpu_memory_mape", kRatio, kLower, "job_aware GPU mem MAPE",
               "mean absolute percentage error of the job-aware forecast of per-card GPU memory "
               "utilisation (true value not 0)"},
    MetricInfo{"forecast_job_aware_gpu_util_mae", kRatio, kLower, "job_aware GPU util MAE",
               "mean absolute error of the job-aware forecast of per-card GPU utilisation"},
    MetricInfo{"forecast_job_aware_gpu_util_mape", kRatio, kLower, "job_aware GPU util MAPE",
               "mean absolute percentage error of the job-aware forecast of per-card GPU "
               "utilisation (true value not 0)"},
    MetricInfo{
        "forecast_job_aware_nvlink_mae", kPlain, kLower, "job_aware NVLink idx MAE",
        "mean absolute error of the job-aware forecast of per-node NVLink competition index"},
    MetricInfo{"forecast_job_aware_nvlink_mape", kRatio, kLower, "job_aware NVLink idx MAPE",
               "mean absolute percentage error of the job-aware forecast of per-node NVLink "
               "competition index (true value not 0)"},
    MetricInfo{"forecast_job_aware_io_await_mae", kPlain, kLower, "job_aware IO await ms MAE",
               "mean absolute error of the job-aware forecast of per-node storage await (ms)"},
    MetricInfo{"forecast_job_aware_io_await_mape", kRatio, kLower, "job_aware IO await ms MAPE",
               "mean absolute percentage error of the job-aware forecast of per-node storage await "
               "(ms) (true value not 0)"},
};

constexpr std::array<std::string_view, 4> kSeedMetrics{"gpu_util_stddev", "mean_wait_s",
                                                       "oom_kills", "nvlink_contention_rate"};

constexpr std::array<std::string_view, 10> kHeadlineMetrics{
    "gpu_util_stddev",      "mean_wait_s",          "oom_kills",         "nvlink_contention_rate",
    "gpu_util_stddev_busy", "pending_total_mean_s", "start_wait_mean_s", "oom_jobs",
    "jct_km_p50_s",         "censored_jobs"};

}  // namespace

std::span<const MetricInfo> metric_catalog() {
  return kCatalog;
}

const MetricInfo* find_metric(std::string_view name) {
  for (const auto& info : kCatalog) {
    if (info.name == name) {
      return &info;
    }
  }
  // A per-queue metric, "<name>/<queue>", is its catalogue entry's.
  if (const auto slash = name.find('/'); slash != std::string_view::npos) {
    return find_metric(name.substr(0, slash));
  }
  return nullptr;
}

std::span<const std::string_view> seed_metric_names() {
  return kSeedMetrics;
}

std::span<const std::string_view> headline_metric_names() {
  return kHeadlineMetrics;
}

std::string_view to_string(Unit unit) {
  switch (unit) {
    case Unit::kRatio:
      return "ratio";
    case Unit::kSeconds:
      return "s";
    case Unit::kCount:
      return "count";
    case Unit::kPerHour:
      return "jobs/h";
    case Unit::kGpus:
      return "gpus";
    case Unit::kFlag:
      return "flag";
    case Unit::kPlain:
      return "plain";
  }
  return "plain";
}

std::string_view to_string(Direction direction) {
  switch (direction) {
    case Direction::kLowerIsBetter:
      return "lower";
    case Direction::kHigherIsBetter:
      return "higher";
    case Direction::kNeutral:
      return "neutral";
  }
  return "neutral";
}

}  // namespace tidesim::metrics
