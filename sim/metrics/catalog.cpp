#include "tidesim/sim/metrics/catalog.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/metrics/metric_names.hpp"

namespace tidesim::metrics {
namespace {

using enum Unit;
constexpr Direction kLower = Direction::kLowerIsBetter;
constexpr Direction kHigher = Direction::kHigherIsBetter;
constexpr Direction kNeutral = Direction::kNeutral;

// The metrics before the interruption family, in presentation order.
constexpr std::array kLeading{
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
    MetricInfo{"start_wait_mean_s", kSeconds, kLower, "wait to latest start",
               "mean over submitted jobs of submit -> start of the latest attempt (the one that "
               "succeeded or failed), censored at the run's end when it has not started"},
    MetricInfo{"oom_jobs", kCount, kLower, "jobs OOM-killed", "jobs with at least one OOM kill"},
    MetricInfo{"nvlink_contended_jobs_share", kRatio, kLower, "NVLink jobs contended",
               "share of NVLink-requiring multi-GPU jobs contended for more than half their "
               "running time"},
    // Placement and the fabric (docs/metrics.md).
    MetricInfo{"step_slowdown_mean", kRatio, kLower, "step slowdown",
               "mean over jobs that ran of running time / the time its work takes on its "
               "reference placement (1: as fast)"},
    MetricInfo{"step_slowdown_max", kRatio, kLower, "step slowdown max",
               "largest job step slowdown against its reference placement"},
    MetricInfo{"comm_share_mean", kRatio, kLower, "communication share",
               "GPU-time-weighted share of multi-GPU jobs' step spent on communication compute "
               "does not hide"},
    MetricInfo{"fabric_contended_share", kRatio, kLower, "fabric contention",
               "share of multi-pod jobs' running GPU-time with their ring's rate < 95% of its "
               "demand"},
    MetricInfo{"fabric_slowed_jobs", kCount, kLower, "jobs slowed by the fabric",
               "jobs of several pods whose ring was ever below 95% of its demand"},
    MetricInfo{"fabric_slowed_step_slowdown_mean", kRatio, kLower, "their step slowdown",
               "mean step slowdown of the jobs slowed by the fabric"},
    MetricInfo{"gang_span_tier0_mean", kCount, kLower, "gang span (tier-0 domains)",
               "mean tier-0 domains (leaves) spanned by attempts of jobs on several nodes"},
    MetricInfo{"gang_span_excess_share", kRatio, kLower, "gangs spread beyond need",
               "share of multi-node attempts spanning more domains of a tier than needed"},
    MetricInfo{"fabric_tier0_bytes", kPlain, kNeutral, "tier-0 up-link bytes",
               "bytes rings put on tier 0's up-links, one direction"},
    MetricInfo{"fabric_tier1_bytes", kPlain, kNeutral, "tier-1 up-link bytes",
               "bytes rings put on tier 1's up-links, one direction"},
    MetricInfo{"fabric_tier2_bytes", kPlain, kNeutral, "tier-2 up-link bytes",
               "bytes rings put on tier 2's up-links, one direction"},
    MetricInfo{"fabric_tier0_utilization", kRatio, kNeutral, "tier-0 up-link utilisation",
               "tier 0's up-link bytes over its capacity x the run's length"},
    MetricInfo{"fabric_tier1_utilization", kRatio, kNeutral, "tier-1 up-link utilisation",
               "tier 1's up-link bytes over its capacity x the run's length"},
    MetricInfo{"fabric_tier2_utilization", kRatio, kNeutral, "tier-2 up-link utilisation",
               "tier 2's up-link bytes over its capacity x the run's length"},
    MetricInfo{"llm_mfu_mean", kRatio, kHigher, "LLM MFU",
               "GPU-time-weighted model-FLOPs utilisation of LLM jobs"},
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
               "job attempts migrated by the descheduler / jobs submitted (healthy < 0.5%)"},
    MetricInfo{"migration_rate_alert", kFlag, kLower, "migration alert",
               "1 when the migration rate is 0.5% or more"},
    MetricInfo{"preemption_rate", kRatio, kLower, "preemption rate",
               "job attempts stopped by scheduler preemption / jobs submitted"},
    MetricInfo{"suspension_rate", kRatio, kLower, "suspension rate",
               "job attempts suspended by the job-level admission policy / jobs submitted"},
    MetricInfo{"lease_extensions", kCount, kNeutral, "lease extensions",
               "Gavel's rounds: placements on exactly the GPUs of the job's previous round"},
    MetricInfo{"lease_extension_share", kRatio, kHigher, "lease extension share",
               "Gavel's rounds: lease extensions / jobs placed in a round and still present in "
               "the next"},
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
    // Finish-time fairness (Themis), over succeeded jobs with a known uncontended run time.
    MetricInfo{"ftf_rho_mean", kPlain, kLower, "FTF rho mean",
               "mean finish-time fairness: JCT / completion time alone on a 1/N cluster share"},
    MetricInfo{"ftf_rho_p50", kPlain, kLower, "FTF rho p50", "median finish-time fairness rho"},
    MetricInfo{"ftf_rho_p99", kPlain, kLower, "FTF rho p99",
               "99th percentile finish-time fairness rho"},
    MetricInfo{"ftf_rho_max", kPlain, kLower, "FTF rho max", "largest finish-time fairness rho"},
    MetricInfo{"ftf_unfair_share", kRatio, kLower, "FTF unfair",
               "share of jobs served unfairly: rho above 1.05 (Shockwave's threshold)"},
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
    MetricInfo{"slo_jobs", kCount, kNeutral, "jobs with an SLO",
               "jobs with a deadline (Gavel's SLO)"},
    MetricInfo{"slo_violations", kCount, kLower, "SLO violations",
               "jobs with a deadline that did not succeed within it (failed and unfinished "
               "jobs count)"},
    MetricInfo{"slo_violation_share", kRatio, kLower, "SLO violated",
               "share of the jobs with a deadline that did not succeed within it"},
    MetricInfo{"censored_jobs", kCount, kLower, "jobs censored",
               "jobs without a success (failed or unfinished): censored in the KM JCT"},
    MetricInfo{"unscheduled_jobs", kCount, kLower, "jobs never bound",
               "jobs submitted but never bound by the end"},
    MetricInfo{"evictions", kCount, kLower, "evictions", "pod eviction events"},
    // Job-level scheduling (only in runs with gangs or preemptions).
    MetricInfo{"preemptions", kCount, kLower, "preemptions", "job attempts stopped by preemption"},
    MetricInfo{"preemption_lost_gpu_s", kSeconds, kLower, "GPU-time lost to preemption",
               "GPU-seconds of work since the last checkpoint thrown away by preemptions"},
    MetricInfo{"suspension_lost_gpu_s", kSeconds, kLower, "GPU-time lost to suspension",
               "GPU-seconds of work since the last checkpoint thrown away by suspensions"},
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
    // Topology (sim/metrics/topology.hpp): per fabric tier "<name>/<tier>" (only on a fabric);
    // Kueue's topology-aware scheduling (only in runs whose flavours name a topology).
    MetricInfo{"stranded_gpus_mean", kCount, kLower, "stranded free GPUs",
               "time-averaged free GPUs in partly used domains of the fabric tier"},
    MetricInfo{"stranded_gpus_share", kRatio, kLower, "stranded share of free GPUs",
               "stranded free GPU-time of the tier over all free GPU-time"},
    MetricInfo{"tas_admitted", kCount, kNeutral, "topology admissions",
               "admissions placed by Kueue's topology-aware scheduling"},
    MetricInfo{"tas_refusals", kCount, kNeutral, "topology refusals",
               "refusals for a topology that does not fit (one per new reason)"},
    MetricInfo{"tas_refused_jobs", kCount, kNeutral, "jobs refused for topology",
               "jobs refused for their topology at least once"},
    MetricInfo{"tas_topology_wait_mean_s", kSeconds, kLower, "topology wait mean",
               "mean time from a job's first topology refusal to its admission (0 if none)"},
    MetricInfo{"tas_topology_wait_p99_s", kSeconds, kLower, "topology wait p99",
               "99th percentile time pending for a topology"},
    MetricInfo{"tas_span_mean", kCount, kLower, "gang span",
               "mean number of domains of the topology level a job's pods were assigned to"},
};

// Interruptions (the scenario's faults: section, preemption; docs/failures.md). Absent when
// none. Per cause (kInterruptionCauses, same order): the labels of its two metrics and what
// stopped the attempt ("job attempts stopped by <by><attempt_detail>", "jobs stopped by <by> at
// least once").
struct CauseText {
  std::string_view cause;
  std::string_view attempts_label;
  std::string_view jobs_label;
  std::string_view by;
  std::string_view attempt_detail;
};
constexpr std::array<CauseText, kInterruptionCauses.size()> kCauseTexts{{
    {"preemption", "preemption interruptions", "jobs preempted", "a preemption", ""},
    {"node_failure", "node-failure interruptions", "jobs hit by node failures", "a node failure",
     ""},
    {"card_failure", "card-error interruptions", "jobs hit by card errors",
     "an XID-style card error", ""},
    {"drain", "drain interruptions", "jobs hit by drains", "a planned drain", ""},
    {"migration", "migrations", "jobs migrated", "the descheduler", " to run elsewhere"},
    {"suspension", "suspensions", "jobs suspended", "the job-level admission policy", ""},
    {"resize", "resizes", "jobs resized", "the job-level policy",
     " to change an elastic job's size (it checkpoints first: no work lost)"},
}};

constexpr MetricInfo kInterruptions{
    "interruptions", kCount, kLower, "interruptions",
    "job attempts stopped from outside (preemptions, failures, drains, migrations, suspensions, "
    "resizes)"};
constexpr MetricInfo kJobsInterrupted{"jobs_interrupted", kCount, kLower, "jobs interrupted",
                                      "jobs stopped from outside at least once"};

// The metrics between the interruption and the forecast families.
constexpr std::array kTrailing{
    MetricInfo{"gpu_hours_lost", kPlain, kLower, "GPU-hours lost",
               "GPU-hours whose work was thrown away: run since the last checkpoint by "
               "interrupted or OOM-killed attempts, and all the GPU-hours of failed jobs"},
    MetricInfo{"gpu_hours_lost_failures", kPlain, kLower, "GPU-hours lost to failures",
               "the part of GPU-hours lost due to OOM kills and failed jobs"},
    MetricInfo{"gpu_hours_run", kPlain, kNeutral, "GPU-hours run", "GPU-hours of running attempts"},
    MetricInfo{
        "gpu_hours_allocated", kPlain, kNeutral, "GPU-hours allocated",
        "GPU-hours held by bound pods, running or not (gang waits, startup, restore, crash loops)"},
    MetricInfo{"goodput", kRatio, kHigher, "goodput", "1 - GPU-hours lost / GPU-hours run"},
    // Migrations (the scenario's descheduler: section; docs/descheduling.md). Absent when none.
    MetricInfo{"migration_gpu_hours_lost", kPlain, kLower, "GPU-hours lost to migrations",
               "GPU-hours run since the last checkpoint by migrated attempts"},
    MetricInfo{"migration_restart_gpu_hours", kPlain, kLower, "GPU-hours restarting migrations",
               "GPU-hours migrated jobs' new pods held before work resumed (startup, restore)"},
    MetricInfo{"migration_goodput_loss", kRatio, kLower, "goodput lost to migrations",
               "(migration GPU-hours lost + restarting) / GPU-hours run"},
};

// Synchronous gangs under failures by component (the scenario's faults.gang; docs/failures.md,
// "Gangs"), before the per-component counts. Absent without gang lives.
constexpr std::array kGangFailures{
    MetricInfo{"interruptions_unexpected", kCount, kLower, "unexpected interruptions",
               "gang attempts stopped by an unexpected failure of a member (any component)"},
    MetricInfo{"ettr", kRatio, kHigher, "ETTR",
               "effective training time ratio: gangs' productive time / their wall time "
               "(Kokolis et al., HPCA 2025)"},
    MetricInfo{"interruptions_per_day", kPlain, kLower, "interruptions per day",
               "unexpected gang interruptions per day of gang wall time"},
    MetricInfo{"failure_hours_lost_work", kPlain, kLower, "hours of lost work",
               "gang wall hours of compute thrown away (since the last committed checkpoint)"},
    MetricInfo{"failure_hours_detection", kPlain, kLower, "hours detecting failures",
               "gang wall hours between failures and their detection"},
    MetricInfo{"failure_hours_restart", kPlain, kLower, "hours restarting",
               "gang wall hours recovering (spare, replacement or rescheduling, waiting for "
               "repairs) and loading the checkpoint"},
    MetricInfo{"failure_hours_checkpoint", kPlain, kLower, "hours checkpointing",
               "gang wall hours training stalled writing (or snapshotting) checkpoints"},
    MetricInfo{"failure_hours_planned", kPlain, kLower, "hours of planned maintenance",
               "gang wall hours down for planned maintenance"},
    MetricInfo{"interruptions_planned", kCount, kNeutral, "planned interruptions",
               "gang attempts stopped by planned maintenance (checkpointed first)"},
    MetricInfo{"mtti_hours", kPlain, kHigher, "MTTI (h)",
               "gang running hours / unexpected interruptions"},
    MetricInfo{"mtti_hours_under_1k_gpus", kPlain, kHigher, "MTTI < 1,024 GPUs (h)",
               "running hours / unexpected interruptions of gangs under 1,024 GPUs"},
    MetricInfo{"mtti_hours_1k_gpus_plus", kPlain, kHigher, "MTTI >= 1,024 GPUs (h)",
               "running hours / unexpected interruptions of gangs of 1,024 GPUs or more"},
};

// Load prediction accuracy (the scenario's prediction: section; docs/prediction.md): per
// predictor (the names a run's forecasts carry), quantity and score. Per predictor: what its
// forecast is called in a definition.
struct PredictorText {
  std::string_view predictor;
  std::string_view forecast;
};
constexpr std::array<PredictorText, 5> kPredictorTexts{{
    {"last", "the last scraped value forecast"},
    {"ewma", "the EWMA forecast"},
    {"holt", "the Holt's linear trend forecast"},
    {"ar", "the AR(p) forecast"},
    {"job-aware", "the job-aware forecast"},
}};

// Per quantity (kForecastQuantities, same order): its label, what it is, and the unit of its MAE
// (a MAPE is a ratio).
struct QuantityText {
  std::string_view quantity;
  std::string_view label;
  std::string_view what;
  Unit mae_unit;
};
constexpr std::array<QuantityText, kForecastQuantities.size()> kQuantityTexts{{
    {"gpu_memory", "GPU mem", "per-card GPU memory utilisation", kRatio},
    {"gpu_util", "GPU util", "per-card GPU utilisation", kRatio},
    {"nvlink", "NVLink idx", "per-node NVLink competition index", kPlain},
    {"io_await", "IO await ms", "per-node storage await (ms)", kPlain},
}};

// True when texts[i].*key == names[i] for every i: a text table follows its name factors.
template <typename Text, std::size_t N>
constexpr bool follows(const std::array<Text, N>& texts,
                       const std::array<std::string_view, N>& names, std::string_view Text::*key) {
  for (std::size_t i = 0; i < N; ++i) {
    if (texts[i].*key != names[i]) {
      return false;
    }
  }
  return true;
}
static_assert(follows(kCauseTexts, kInterruptionCauses, &CauseText::cause),
              "kCauseTexts must follow kInterruptionCauses");
static_assert(follows(kQuantityTexts, kForecastQuantities, &QuantityText::quantity),
              "kQuantityTexts must follow kForecastQuantities");

constexpr std::array<std::string_view, 4> kSeedMetrics{"gpu_util_stddev", "mean_wait_s",
                                                       "oom_kills", "nvlink_contention_rate"};

// The default table's rows. It always shows the jobs that never bound and those without a success
// (failed or unfinished): a wait or JCT figure that looks fine says nothing of the jobs it leaves
// out.
constexpr std::array<std::string_view, 11> kHeadlineMetrics{
    "gpu_util_stddev",      "mean_wait_s",          "oom_kills",         "nvlink_contention_rate",
    "gpu_util_stddev_busy", "pending_total_mean_s", "start_wait_mean_s", "oom_jobs",
    "jct_km_p50_s",         "censored_jobs",        "unscheduled_jobs"};

// A job-level comparison's rows: what its policies trade (completion time, queueing, how full the
// cluster is kept, fairness), and the jobs the completion-time figures leave out.
constexpr std::array<std::string_view, 8> kJobLevelMetrics{
    "jct_mean_s",           "jct_p50_s",           "jct_p99_s",    "makespan_s",
    "pending_total_mean_s", "gpu_allocation_rate", "ftf_rho_mean", "censored_jobs"};

// The catalogue: the fixed entries with the families generated between them. The generated
// names, labels and definitions live in `text_` (a deque: its strings never move).
class Catalogue {
 public:
  Catalogue() {
    entries_.assign(kLeading.begin(), kLeading.end());
    add_interruptions();
    entries_.insert(entries_.end(), kTrailing.begin(), kTrailing.end());
    add_gang_failures();
    add_forecasts();
  }

  std::span<const MetricInfo> entries() const { return entries_; }

 private:
  std::string_view keep(std::string s) { return text_.emplace_back(std::move(s)); }

  void add(std::string name, Unit unit, Direction direction, std::string label,
           std::string description) {
    entries_.push_back(MetricInfo{keep(std::move(name)), unit, direction, keep(std::move(label)),
                                  keep(std::move(description))});
  }

  void add_interruptions() {
    entries_.push_back(kInterruptions);
    for (const CauseText& c : kCauseTexts) {
      add(interruptions_metric(c.cause), kCount, kLower, std::string(c.attempts_label),
          "job attempts stopped by " + std::string(c.by) + std::string(c.attempt_detail));
    }
    entries_.push_back(kJobsInterrupted);
    for (const CauseText& c : kCauseTexts) {
      add(jobs_interrupted_metric(c.cause), kCount, kLower, std::string(c.jobs_label),
          "jobs stopped by " + std::string(c.by) + " at least once");
    }
  }

  void add_gang_failures() {
    entries_.insert(entries_.end(), kGangFailures.begin(), kGangFailures.end());
    for (const std::string_view c : kFailureComponents) {
      std::string words(c);
      std::replace(words.begin(), words.end(), '_', ' ');
      add(interruptions_metric(c), kCount, kLower, "interruptions: " + words,
          "unexpected gang interruptions whose root cause is " + words);
    }
  }

  void add_forecasts() {
    for (const PredictorText& p : kPredictorTexts) {
      const std::string stem = forecast_stem(p.predictor);
      for (const QuantityText& q : kQuantityTexts) {
        const std::string of = std::string(p.forecast) + " of " + std::string(q.what);
        const std::string label = stem + " " + std::string(q.label);
        add(forecast_metric(p.predictor, q.quantity, ForecastScore::kMae), q.mae_unit, kLower,
            label + " MAE", "mean absolute error of " + of);
        add(forecast_metric(p.predictor, q.quantity, ForecastScore::kMape), kRatio, kLower,
            label + " MAPE", "mean absolute percentage error of " + of + " (true value not 0)");
      }
    }
  }

  std::deque<std::string> text_;
  std::vector<MetricInfo> entries_;
};

const Catalogue& catalogue() {
  static const Catalogue kCatalogue;
  return kCatalogue;
}

}  // namespace

std::span<const MetricInfo> metric_catalog() {
  return catalogue().entries();
}

const MetricInfo* find_metric(std::string_view name) {
  // A per-queue metric, "<name>/<queue>", is its catalogue entry's.
  const std::string_view base = per_queue_base(name);
  for (const auto& info : metric_catalog()) {
    if (info.name == base) {
      return &info;
    }
  }
  return nullptr;
}

std::span<const std::string_view> seed_metric_names() {
  return kSeedMetrics;
}

std::span<const std::string_view> headline_metric_names() {
  return kHeadlineMetrics;
}

std::span<const std::string_view> job_level_metric_names() {
  return kJobLevelMetrics;
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
