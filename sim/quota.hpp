#pragma once
/// Kueue-style queues and quotas (docs/job-scheduling.md, "Queues and quotas"; Kueue v1beta1 API,
/// kubernetes-sigs/kueue, concepts "Cluster Queue", "Local Queue", "Preemption"). A job names
/// a LocalQueue with the pod label `kueue.x-k8s.io/queue-name`; each LocalQueue points at a
/// ClusterQueue, which holds a nominal quota of GPUs (the `nvidia.com/gpu` resource of one
/// flavour), may belong to a cohort and borrow the cohort's unused quota up to its
/// borrowingLimit, and may reclaim its own quota lent out (`reclaimWithinCohort`). The quota is
/// an extra admission condition on top of the job-level policy's order and the cluster's GPUs.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/error.hpp"
#include "sim/engine/time.hpp"
#include "workloads/job.hpp"

namespace tidesim {

/// The pod label naming a job's LocalQueue (Kueue's).
using workloads::kQueueNameLabel;

/// One ClusterQueue (GPUs only, one flavour).
struct ClusterQueueConfig {
  std::string name;
  /// Empty: in no cohort (it can neither borrow nor lend).
  std::string cohort;
  /// nominalQuota of nvidia.com/gpu, GPUs.
  std::int64_t nominal_gpus = 0;
  /// borrowingLimit: GPUs above nominal it may borrow; nullopt: no limit (Kueue's default).
  std::optional<std::int64_t> borrowing_limit_gpus;
  /// queueingStrategy: StrictFIFO (true: a head that does not fit blocks the queue) or
  /// BestEffortFIFO (false, Kueue's default: later jobs that fit are admitted).
  bool strict_fifo = false;
  /// preemption.reclaimWithinCohort: Any (true) or Never (false, Kueue's default).
  bool reclaim_within_cohort = false;
  SourceLocation where;
};

/// The `queues:` part of a policy's `admission:` mapping.
struct QuotaConfig {
  std::vector<ClusterQueueConfig> cluster_queues;
  /// LocalQueue name -> index into cluster_queues.
  std::map<std::string, int> local_queues;
  SourceLocation where;
  /// The field path of the `queues:` mapping (for errors).
  std::string path;
};

/// What the quota walk knows of one active job, in the policy's order.
struct QuotaJob {
  int id = 0;
  int gpus = 0;
  /// Index into QuotaConfig::cluster_queues; -1: the job names no queue (no quota applies).
  int queue = -1;
  /// Admitted now, and kept whatever the walk decides unless reclaimed (non-preemptive policies)
  /// or only a candidate like any other (preemptive ones: `kept` false).
  bool admitted = false;
  bool kept = false;
  /// When it was last admitted (newest first is the reclaim order).
  TimePoint admitted_at{};
  std::int64_t order = 0;
};

struct QuotaDecision {
  /// Jobs to run now (ascending ids): kept ones not reclaimed, plus those admitted.
  std::vector<int> chosen;
  /// Admitted jobs reclaimed (ascending ids): to be suspended.
  std::vector<int> reclaimed;
};

/// The quota walk. `jobs` are in the policy's order with the kept ones first. Each job not kept
/// is admitted when it fits the cluster's free GPUs and its ClusterQueue's quota:
///   usage(q) + g <= nominal(q) + borrow, where borrow = 0 outside a cohort, else
///   usage(q) + g - nominal(q) <= borrowingLimit(q) and
///   cohort_usage(c) + g <= sum of nominal(q') over the cohort's queues.
/// A job that does not fit, whose queue reclaims within its cohort and would stay within its
/// nominal quota (usage(q) + g <= nominal(q)), suspends chosen jobs of the cohort's other
/// queues that borrow (usage > nominal), newest admitted first (jobs chosen in this walk count
/// as newest, latest first), only while their queue still borrows, until it fits; if it cannot
/// fit, nothing is suspended (Kueue preempts only when the preemptor then fits). A job that
/// does not fit in a StrictFIFO queue blocks the rest of that queue.
QuotaDecision select_with_quotas(const std::vector<QuotaJob>& jobs, const QuotaConfig& quotas,
                                 std::int64_t capacity);

}  // namespace tidesim
