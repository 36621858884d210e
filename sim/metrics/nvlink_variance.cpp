#include "tidesim/sim/metrics/nvlink_variance.hpp"

#include <algorithm>

#include "tidesim/sim/metrics/node_stats.hpp"

namespace tidesim::metrics {

namespace {

std::optional<double> node_nvlink_variance(const NodeState& node) {
  return population_variance(node.nvlink_utilization);
}

}  // namespace

NvlinkVarianceCollector::NvlinkVarianceCollector(NvlinkVarianceOptions options)
    : options_(options), variance_(node_nvlink_variance) {}

void NvlinkVarianceCollector::on_sample(const ClusterSample& sample) {
  variance_.update(sample);
  // The per-sample figures are sums over every node in node order: recomputed only when a
  // node's v_n changed, else the previous sample's (the same sums of the same values; the
  // largest v_n is then already counted).
  if (variance_.defined_changed()) {
    double sum = 0.0;
    int nodes = 0;
    int above = 0;
    for (const double v : variance_.defined()) {
      sum += v;
      ++nodes;
      if (v > options_.threshold) {
        ++above;
      }
      max_ = max_ ? std::max(*max_, v) : v;
    }
    if (nodes == 0) {
      sample_mean_.reset();
      sample_share_.reset();
    } else {
      sample_mean_ = sum / nodes;
      sample_share_ = static_cast<double>(above) / nodes;
    }
  }
  mean_.add(sample.at, sample_mean_);
  alert_share_.add(sample.at, sample_share_);
}

void NvlinkVarianceCollector::finish(TimePoint end, MetricValues& out) const {
  const auto mean = mean_.mean(end);
  if (!mean) {
    return;
  }
  out["nvlink_variance_mean"] = *mean;
  out["nvlink_variance_max"] = *max_;
  out["nvlink_variance_alert_share"] = *alert_share_.mean(end);
  out["nvlink_variance_alert"] = *max_ > options_.threshold ? 1.0 : 0.0;
}

}  // namespace tidesim::metrics
