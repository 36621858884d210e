#pragma once
/// Metrics of Kueue-style queues and quotas, per ClusterQueue (docs/metrics.md, "Queues and
/// quotas"), from QuotaEvent signals; absent for runs without queues.
#include <map>
#include <string>
#include <vector>

#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

/// For each ClusterQueue q, over [0, end] (T = end):
/// - quota_utilisation/q = (integral of admitted GPUs dt) / (nominal x T), may exceed 1 when
///   the queue borrows; absent when nominal is 0;
/// - quota_borrowed_share/q = (integral of max(0, admitted - nominal) dt) / (integral of
///   admitted dt): the share of its admitted GPU-time that was borrowed; absent when 0/0;
/// - queue_wait_mean_s/q, queue_wait_p99_s/q: over its jobs' first admissions, seconds from
///   submission to admission; queue_admitted/q: how many jobs were admitted at least once.
class QuotaCollector {
 public:
  void on_quota(const QuotaEvent& event);
  void finish(TimePoint end, MetricValues& out) const;

 private:
  struct Queue {
    std::int64_t nominal = 0;
    std::int64_t usage = 0;
    TimePoint since{};
    double used_gpu_s = 0.0;
    double borrowed_gpu_s = 0.0;
    std::vector<double> waits;
  };
  std::map<std::string, Queue, std::less<>> queues_;
};

}  // namespace tidesim::metrics
