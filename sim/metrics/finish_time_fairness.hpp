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
/// of `cluster_gpus` GPUs, for a rigid job of `gpus` GPUs whose work takes `uncontended_s`
/// seconds at those GPUs:
///   T_id = uncontended_s x max(1, gpus x mean_jobs / cluster_gpus).
/// A share of cluster_gpus / N GPUs holds the job's `gpus` when gpus <= cluster_gpus / N (it
/// runs as alone); otherwise the job holds its GPUs for the share's fraction
/// (cluster_gpus / N) / gpus of the time. `cluster_gpus` > 0, `mean_jobs` >= 1.
double isolated_seconds(double uncontended_s, int gpus, double mean_jobs, int cluster_gpus);

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

/// From JobEvent signals (submit, success, failure; the submit's uncontended_seconds and gpus)
/// and ClusterSample signals (the cluster's GPUs: the largest sum of the nodes'
/// gpus_allocatable over the run's samples, in device-plugin units as a job's gpus). Produces,
/// over the succeeded jobs with a known uncontended run time (uncontended_seconds > 0), when
/// there is one and the cluster has GPUs:
/// - ftf_rho_mean, ftf_rho_p50, ftf_rho_p99, ftf_rho_max: the mean, R-7 quantiles (quantile(),
///   sim/engine/statistics.hpp) and largest of rho;
/// - ftf_rho_above_1_share: the share of them with rho > 1 + 1e-6 (worse than their fair share;
///   the margin absorbs the microsecond rounding of simulated time).
class FinishTimeFairnessCollector : public Collector {
 public:
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
};

}  // namespace tidesim::metrics
