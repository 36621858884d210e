#pragma once
/// Finish-time fairness (Themis: Mahajan et al., "Themis: Fair and Efficient GPU Cluster
/// Scheduling", NSDI'20): how much longer a job took in the shared cluster than it would have
/// alone on a 1/N share of it (docs/metrics.md, "Finish-time fairness").
#include <map>
#include <string>
#include <vector>

#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

/// A job's isolated completion time T_id: its completion time alone on a 1/N share of a cluster
/// of `cluster_gpus` GPUs (physical cards), for a rigid job of `gpus` cards that takes
/// `uncontended_s` seconds alone at those cards (its pods' start-up included):
///   T_id = uncontended_s x max(1, min(gpus, cluster_gpus) x mean_jobs / cluster_gpus).
/// A share of cluster_gpus / N GPUs holds the job's `gpus` when gpus <= cluster_gpus / N (it
/// runs as alone); otherwise the job holds its GPUs for the share's fraction
/// (cluster_gpus / N) / gpus of the time. A job asks at most the whole cluster (a job of
/// time-sliced replicas may ask more units than there are cards). `cluster_gpus` > 0,
/// `mean_jobs` >= 1.
double isolated_seconds(double uncontended_s, int gpus, double mean_jobs, int cluster_gpus);

/// Shockwave's and Gavel's threshold: a job is unfair above rho 1.05
/// (uw-mad-dash/shockwave, scheduler/reproduce/aggregate_result.py).
inline constexpr double kUnfairRho = 1.05;

/// Parameters of the finish-time fairness collector.
struct FinishTimeFairnessOptions {
  /// A job counts as unfairly served (ftf_unfair_share) when its rho is above this; finite,
  /// at least 1 (std::invalid_argument otherwise).
  double unfair_threshold = kUnfairRho;
  /// The contention of the 1/N share: false, Themis' (the job's GPUs x the mean number of jobs
  /// present over its lifetime / the cluster's GPUs); true, Shockwave's artifact's (every job
  /// the run submitted / the cluster's GPUs, whatever the job's GPUs: scheduler.py
  /// finish_time_fairness_list, `JCT / (exclusive x max(1, jobs / GPUs))`).
  bool all_jobs_contention = false;
};

/// The cards a sampled node adds to the cluster of the 1/N share: its allocatable device-plugin
/// units, but no more than its physical cards (gpu_utilization has one entry per card; a node
/// that lists none counts its units). Under time-slicing a card's replicas are one card.
int node_cards(const NodeState& node);

/// One succeeded job's finish-time fairness.
struct FinishTimeFairness {
  std::string job;
  /// T_sh: kSubmitted -> kSucceeded, seconds.
  double shared_s = 0.0;
  /// N: the time-average, over [submit, success], of the jobs submitted and not yet ended
  /// (succeeded or failed), the job itself included.
  double mean_jobs = 0.0;
  /// T_id (isolated_seconds()).
  double isolated_s = 0.0;
  /// rho = T_sh / T_id.
  double rho = 0.0;
};

/// From JobEvent signals (submit, success, failure; the submit's uncontended_seconds, which
/// includes the pods' start-up, and gpus) and ClusterSample signals (the cluster's GPUs: the
/// largest sum of node_cards() over the run's samples: physical cards, a time-sliced card's
/// replicas counted once). Produces, over the succeeded jobs with a known uncontended run time
/// (uncontended_seconds > 0), when there is one and the cluster has GPUs:
/// - ftf_rho_mean, ftf_rho_p50, ftf_rho_p99, ftf_rho_max: the mean, R-7 quantiles (quantile(),
///   sim/engine/statistics.hpp) and largest of rho;
/// - ftf_unfair_share: the share of them with rho above the options' unfair_threshold (1.05, as
///   Shockwave and Gavel count a job unfair).
class FinishTimeFairnessCollector : public Collector {
 public:
  /// std::invalid_argument when the threshold is not finite or below 1.
  explicit FinishTimeFairnessCollector(FinishTimeFairnessOptions options = {});
  void on_job(const JobEvent& event) override;
  void on_sample(const ClusterSample& sample) override;
  void finish(TimePoint end, MetricValues& out) const override;

  /// Each succeeded job's finish-time fairness, in order of success; empty when the cluster's
  /// GPUs are unknown (no sample with GPUs).
  std::vector<FinishTimeFairness> jobs() const;

 private:
  // Integrates the number of jobs in the system up to `at`.
  void advance(TimePoint at);
  struct Track {
    TimePoint submitted{};
    double area_at_submit = 0.0;
    int gpus = 0;
    double uncontended_s = 0.0;
  };
  struct Done {
    std::string job;
    double shared_s = 0.0;
    double mean_jobs = 0.0;
    int gpus = 0;
    double uncontended_s = 0.0;
  };
  std::map<std::string, Track, std::less<>> in_system_;  // submitted, not ended
  std::vector<Done> done_;
  TimePoint last_{};
  double area_ = 0.0;  // integral of the number of jobs in the system, job-seconds
  int cluster_gpus_ = 0;
  int submitted_ = 0;
  FinishTimeFairnessOptions options_;
};

}  // namespace tidesim::metrics
