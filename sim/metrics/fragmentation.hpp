#pragma once
/// GPU fragmentation as the FGD paper defines it (Weng et al., "Beware of Fragmentation:
/// Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC'23, and its
/// simulator hkust-adsl/kubernetes-scheduler-simulator, pkg/utils/frag.go), specialised to
/// whole-unit GPU requests.
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tidesim/sim/metrics/collector.hpp"
#include "tidesim/sim/metrics/per_node_values.hpp"

namespace tidesim::metrics {

/// One kind of task of the target workload: a pod asking `units` device-plugin GPU units, with a
/// relative popularity `weight` (> 0; weights are normalised to sum to 1).
struct TaskShape {
  int units = 1;
  double weight = 1.0;
};

/// Parameters of FragmentationCollector.
struct FragmentationOptions {
  /// The target workload M. Empty: derived from the run's jobs (see FragmentationCollector).
  std::vector<TaskShape> task_shapes;
};

/// From ClusterSample (free units per node) and JobEvent (the workload's task shapes) signals.
/// FGD: the fragmentation of node n measured by task m, F_n(m), is the node's unallocated GPU
/// capacity that m cannot use: all of it when m cannot run on n, else the free capacity of cards
/// too small for m's per-card request. With whole-unit requests every free unit is a whole free
/// card, so the second case is 0 and F_n(m) = free_n if free_n < units_m, else 0. The expected
/// fragmentation is F_n(M) = sum_m p_m F_n(m) and the cluster's is F(M) = sum_n F_n(M).
/// Per sample: frag = F(M), idle = sum_n free_n (free_n = allocatable - allocated, nodes with
/// allocatable units only). Produces gpu_frag_gpus (time-weighted mean of frag) and gpu_frag_rate
/// (time-weighted mean of frag / idle over samples with idle > 0; FGD's "fragmentation ratio").
/// CPU and host memory are not in ClusterSample, so FGD's "lacks CPU" quadrants are not counted.
///
/// Derived workload: each job seen in a kSubmitted event with gpus > 0 contributes P pods of
/// ceil(gpus / P) units, P = the number of distinct pods bound for it (1 when none was bound);
/// p_m = share of pods of shape m (FGD counts pods, not jobs). FGD keeps only the most popular
/// shapes that cover a popularity threshold; tidesim keeps all.
class FragmentationCollector : public Collector {
 public:
  explicit FragmentationCollector(FragmentationOptions options = {})
      : options_(std::move(options)) {}

  void on_job(const JobEvent& event) override;
  void on_sample(const ClusterSample& sample) override;
  void finish(TimePoint end, MetricValues& out) const override;

  /// The target workload used by finish(): explicit shapes, or the derived ones (normalised,
  /// ascending units).
  std::vector<TaskShape> task_shapes() const;

 private:
  FragmentationOptions options_;
  // Per job, hashed: task_shapes() only adds whole numbers of pods from them, which sum exactly in
  // any order.
  std::unordered_map<std::string, int> job_gpus_;
  std::unordered_map<std::string, std::set<std::string, std::less<>>> job_pods_;
  /// (instant, number of nodes per count of free units), only when it changed.
  std::vector<std::pair<TimePoint, std::vector<int>>> samples_;
  /// Which nodes changed since the previous sample.
  ChangedNodes changes_;
  /// Per node of the latest sample: its free units, -1 when it has no allocatable units.
  std::vector<int> free_;
  /// The latest sample's histogram, possibly with trailing zeros.
  std::vector<int> counts_;
};

}  // namespace tidesim::metrics
