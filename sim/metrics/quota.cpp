#include "tidesim/sim/metrics/quota.hpp"

#include <algorithm>
#include <numeric>

#include "tidesim/sim/engine/statistics.hpp"
#include "tidesim/sim/metrics/metric_names.hpp"

namespace tidesim::metrics {
namespace {

// Adds the queue's usage over [q.since, t] to its integrals.
void advance(std::int64_t nominal, std::int64_t usage, TimePoint since, TimePoint t, double& used,
             double& borrowed) {
  const double dt = to_seconds(t - since);
  used += dt * static_cast<double>(usage);
  borrowed += dt * static_cast<double>(std::max<std::int64_t>(0, usage - nominal));
}

}  // namespace

void QuotaCollector::on_quota(const QuotaEvent& event) {
  Queue& q = queues_[event.queue];
  advance(q.nominal, q.usage, q.since, event.at, q.used_gpu_s, q.borrowed_gpu_s);
  q.since = event.at;
  q.nominal = event.nominal_gpus;
  q.usage = event.usage_gpus;
  if (event.wait_s) {
    q.waits.push_back(*event.wait_s);
  }
}

void QuotaCollector::finish(TimePoint end, MetricValues& out) const {
  const double t = to_seconds(end - TimePoint{});
  for (const auto& [name, q] : queues_) {
    double used = q.used_gpu_s;
    double borrowed = q.borrowed_gpu_s;
    advance(q.nominal, q.usage, q.since, end, used, borrowed);
    if (q.nominal > 0 && t > 0) {
      out[per_queue_metric("quota_utilisation", name)] =
          used / (static_cast<double>(q.nominal) * t);
    }
    if (used > 0) {
      out[per_queue_metric("quota_borrowed_share", name)] = borrowed / used;
    }
    out[per_queue_metric("queue_admitted", name)] = static_cast<double>(q.waits.size());
    if (!q.waits.empty()) {
      out[per_queue_metric("queue_wait_mean_s", name)] =
          std::accumulate(q.waits.begin(), q.waits.end(), 0.0) /
          static_cast<double>(q.waits.size());
      out[per_queue_metric("queue_wait_p99_s", name)] = *quantile(q.waits, 0.99);
    }
  }
}

}  // namespace tidesim::metrics
