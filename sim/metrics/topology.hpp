#pragma once
/// Metrics of topology-aware placement (docs/metrics.md, "Topology"): free GPUs stranded in
/// partly used domains of each fabric tier, from ClusterSample; and, in runs with Kueue's
/// topology-aware scheduling, the gangs' span per topology level, their time pending for a
/// topology and the refusals, from TopologyEvent.
#include <map>
#include <string>
#include <vector>

#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

struct TopologyOptions {
  /// Per fabric tier (0 nearest the nodes): its name ("leaf", "spine", ...) and each node's
  /// domain index (nodes in the samples' order); empty without a fabric.
  std::vector<std::string> tier_names;
  std::vector<std::vector<int>> tier_domain;
};

/// - stranded_gpus_mean/<tier>: time-weighted mean over samples of the free GPUs of the tier's
///   domains that are partly used (0 < allocated < allocatable in the domain): capacity a gang
///   asking for a whole domain cannot use. Each sample's value holds until the next (the last
///   until the end of the run).
/// - stranded_gpus_share/<tier>: the same integral over that of all free GPUs (absent when the
///   cluster was never idle).
/// - tas_admitted: admissions through a Kueue topology; tas_refused_jobs: jobs refused for
///   their topology at least once; tas_refusals: refusals with a new reason.
/// - tas_topology_wait_mean_s, tas_topology_wait_p99_s: over admissions, the seconds from the
///   job's first refusal for its topology (this attempt) to its admission, 0 when never
///   refused.
/// - tas_span_mean/<level>: over admissions, the mean number of domains of the topology level
///   (named by the label's last path segment: "leaf" for network.topology.nvidia.com/leaf,
///   "hostname") the job's pods were assigned to.
class TopologyCollector : public Collector {
 public:
  explicit TopologyCollector(TopologyOptions options = {}) : options_(std::move(options)) {}
  void on_sample(const ClusterSample& sample) override;
  void on_topology(const TopologyEvent& event);
  void finish(TimePoint end, MetricValues& out) const override;

 private:
  TopologyOptions options_;
  // Samples: the last one's per-tier stranded and free GPUs, and the integrals so far.
  bool sampled_ = false;
  TimePoint last_at_{};
  std::vector<double> stranded_now_;
  double free_now_ = 0.0;
  std::vector<double> stranded_gpu_s_;
  double free_gpu_s_ = 0.0;
  // Topology events.
  int admitted_ = 0;
  int refusals_ = 0;
  std::map<std::string, bool> refused_;  // job -> refused at least once
  std::vector<double> waits_;
  std::vector<std::string> levels_;         // in the first admission's order
  std::map<std::string, double> span_sum_;  // level short name -> sum of spans
};

}  // namespace tidesim::metrics
