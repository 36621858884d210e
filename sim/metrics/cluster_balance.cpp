#include "tidesim/sim/metrics/cluster_balance.hpp"

#include <span>
#include <vector>

namespace tidesim::metrics {

void ClusterBalanceCollector::map_nodes(const ClusterSample& sample) {
  slot_of_.resize(sample.nodes.size());
  for (std::size_t n = 0; n < sample.nodes.size(); ++n) {
    const std::string& name = sample.nodes[n].name;
    auto [it, fresh] = slot_by_name_.try_emplace(name, node_util_.size());
    if (fresh) {
      node_util_.push_back({name, {}});
    }
    slot_of_[n] = it->second;
  }
  slots_have_revisions_ = !sample.node_revisions.empty();
}

void ClusterBalanceCollector::on_sample(const ClusterSample& sample) {
  // Samples with revisions list the same nodes in the same order: map them to their averages
  // once, not by name at every sample.
  if (!same_layout(sample, slot_of_.size(), slots_have_revisions_)) {
    map_nodes(sample);
  }
  const auto values = utils_.update(sample);
  long allocated = 0;
  long allocatable = 0;
  for (std::size_t n = 0; n < sample.nodes.size(); ++n) {
    if (const auto& u = values[n]) {
      node_util_[slot_of_[n]].average.add(sample.at, *u);
    }
    allocated += sample.nodes[n].gpus_allocated;
    allocatable += sample.nodes[n].gpus_allocatable;
  }
  const std::span<const double> utils = utils_.defined();
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
  for (const auto& [name, slot] : slot_by_name_) {  // in name order
    if (const auto m = node_util_[slot].average.mean(end)) {
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
