#include "tidesim/sim/metrics/node_stats.hpp"

#include <cmath>
#include <numeric>

namespace tidesim::metrics {

std::optional<double> node_gpu_utilization(const NodeState& node) {
  if (node.gpu_utilization.empty()) {
    return std::nullopt;
  }
  const double sum = std::accumulate(node.gpu_utilization.begin(), node.gpu_utilization.end(), 0.0);
  return sum / static_cast<double>(node.gpu_utilization.size());
}

std::optional<double> node_gpu_memory_utilization(const NodeState& node) {
  if (node.gpu_memory_used.empty() || node.gpu_memory_capacity <= 0) {
    return std::nullopt;
  }
  double used = 0.0;
  for (const std::int64_t bytes : node.gpu_memory_used) {
    used += static_cast<double>(bytes);
  }
  const double capacity = static_cast<double>(node.gpu_memory_capacity) *
                          static_cast<double>(node.gpu_memory_used.size());
  return used / capacity;
}

std::optional<double> population_variance(std::span<const double> values) {
  if (values.empty()) {
    return std::nullopt;
  }
  const double n = static_cast<double>(values.size());
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  double sum_sq = 0.0;
  for (const double v : values) {
    sum_sq += (v - mean) * (v - mean);
  }
  return sum_sq / n;
}

std::optional<double> population_stddev(std::span<const double> values) {
  const auto var = population_variance(values);
  if (!var) {
    return std::nullopt;
  }
  return std::sqrt(*var);
}

namespace {

// Population std-dev across the nodes of `sample` of one per-node value (nodes without it left
// out).
std::optional<double> stddev_across_nodes(const ClusterSample& sample,
                                          std::optional<double> (*value_of)(const NodeState&)) {
  std::vector<double> values;
  values.reserve(sample.nodes.size());
  for (const auto& node : sample.nodes) {
    if (const auto v = value_of(node)) {
      values.push_back(*v);
    }
  }
  return population_stddev(values);
}

}  // namespace

std::optional<double> gpu_utilization_stddev(const ClusterSample& sample) {
  return stddev_across_nodes(sample, node_gpu_utilization);
}

std::optional<double> gpu_memory_utilization_stddev(const ClusterSample& sample) {
  return stddev_across_nodes(sample, node_gpu_memory_utilization);
}

}  // namespace tidesim::metrics
