#pragma once
/// Every collector of the metric catalogue, attached and finished together.
#include "tidesim/sim/metrics/cluster_balance.hpp"
#include "tidesim/sim/metrics/fabric_traffic.hpp"
#include "tidesim/sim/metrics/finish_time_fairness.hpp"
#include "tidesim/sim/metrics/fragmentation.hpp"
#include "tidesim/sim/metrics/gang_failures.hpp"
#include "tidesim/sim/metrics/gpu_hours.hpp"
#include "tidesim/sim/metrics/interruptions.hpp"
#include "tidesim/sim/metrics/job_metrics.hpp"
#include "tidesim/sim/metrics/job_scheduling.hpp"
#include "tidesim/sim/metrics/lscs.hpp"
#include "tidesim/sim/metrics/nvlink_contention.hpp"
#include "tidesim/sim/metrics/nvlink_variance.hpp"
#include "tidesim/sim/metrics/placement_speed.hpp"
#include "tidesim/sim/metrics/prediction_accuracy.hpp"
#include "tidesim/sim/metrics/quota.hpp"
#include "tidesim/sim/metrics/scheduling_metrics.hpp"
#include "tidesim/sim/metrics/topology.hpp"

namespace tidesim::metrics {

/// Parameters of all standard collectors.
struct StandardCollectorOptions {
  JobMetricsOptions jobs;
  FinishTimeFairnessOptions finish_time_fairness;
  NvlinkContentionOptions nvlink_contention;
  LscsOptions lscs;
  NvlinkVarianceOptions nvlink_variance;
  FragmentationOptions fragmentation;
  FabricTrafficOptions fabric_traffic;
  TopologyOptions topology;
};

/// Owns one of each collector. Same contract as Collector: after attach(), it must outlive every
/// emit and must not move.
class StandardCollectors : public Collector {
 public:
  explicit StandardCollectors(StandardCollectorOptions options = {});

  void on_job(const JobEvent& event) override;
  void on_sample(const ClusterSample& sample) override;
  void on_rate(const JobRate& rate) override;
  void on_scheduling(const SchedulingEvent& event) override;
  /// Load forecasts (scored by the prediction-accuracy collector).
  void on_forecast(const LoadForecastBatch& batch);
  void on_quota(const QuotaEvent& event);
  void on_gang_life(const GangLifeRecord& record) override;
  void on_topology(const TopologyEvent& event);
  /// Every catalogue metric that can be computed.
  void finish(TimePoint end, MetricValues& out) const override;

  /// The NVLink contention collector (per-job contention totals for job records).
  const NvlinkContentionCollector& nvlink_contention() const { return nvlink_contention_; }
  /// The placement-speed collector (per-job step slowdown, communication share, MFU).
  const PlacementSpeedCollector& placement_speed() const { return placement_speed_; }
  /// The LSCS collector (its series for reports).
  const LscsCollector& lscs() const { return lscs_; }

 private:
  ClusterBalanceCollector balance_;
  JobMetricsCollector jobs_;
  JobSchedulingCollector job_scheduling_;
  FinishTimeFairnessCollector finish_time_fairness_;
  GpuHoursCollector gpu_hours_;
  QuotaCollector quota_;
  NvlinkContentionCollector nvlink_contention_;
  PlacementSpeedCollector placement_speed_;
  LscsCollector lscs_;
  NvlinkVarianceCollector nvlink_variance_;
  FragmentationCollector fragmentation_;
  FabricTrafficCollector fabric_traffic_;
  SchedulingMetricsCollector scheduling_;
  PredictionAccuracyCollector prediction_;
  InterruptionsCollector interruptions_;
  GangFailuresCollector gang_failures_;
  TopologyCollector topology_;
};

}  // namespace tidesim::metrics
