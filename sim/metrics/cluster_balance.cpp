#include "sim/metrics/cluster_balance.hpp"

#include <vector>

#include "sim/metrics/node_stats.hpp"

namespace tidesim::metrics {

void ClusterBalanceCollector::on_sample(const ClusterSample& sample) {
  std::vector<double> utils;
  long allocated = 0;
  long allocatable = 0;
  for (const auto& node : sample.nodes) {
    if (const auto u = node_gpu_utilization(node)) {
      utils.push_back(*u);
      node_util_[node.name].add(sample.at, *u);
    }
    allocated += node.gpus_allocated;
    allocatable += node.gpus_allocatable;
  }
  const std::optional<double> spread = population_stddev(utils);
  util_stddev_.add(sample.at, spread);
  util_stddev_busy_.add(sample.at, sample.pending_pods > 0 ? spread : std::nullopt);
  std::optional<double> mean;
  if (!utils.empty()) {
    double sum = 0.0;
    for (const double u : utils) {
      sum += u;
    }
    mean = sum / static_cast<double>(utils.size());
  }
  util_mean_.add(sample.at, mean);
  std::optional<double> rate;
  if (allocatable > 0) {
    rate = static_cast<double>(allocated) / static_cast<double>(allocatable);
  }
  allocation_.add(sample.at, rate);
  queue_.add(sample.at, static_cast<double>(sample.pending_pods));
}

void ClusterBalanceCollector::finish(TimePoint end, MetricValues& out) const {
  auto put = [&out](const char* name, std::optional<double> v) {
    if (v) {
      out[name] = *v;
    }
  };
  put("gpu_util_stddev", util_stddev_.mean(end));
  put("gpu_util_stddev_busy", util_stddev_busy_.mean(end));
  std::vector<double> node_means;
  for (const auto& [name, average] : node_util_) {
    if (const auto m = average.mean(end)) {
      node_means.push_back(*m);
    }
  }
  put("gpu_util_stddev_node_avg", population_stddev(node_means));
  put("gpu_util_mean", util_mean_.mean(end));
  put("gpu_allocation_rate", allocation_.mean(end));
  put("queue_length_mean", queue_.mean(end));
  put("queue_length_max", queue_.max());
}

}  // namespace tidesim::metrics
