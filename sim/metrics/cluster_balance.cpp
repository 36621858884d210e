#include "tidesim/sim/metrics/cluster_balance.hpp"

#include <cmath>
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

void ClusterBalanceCollector::flush(NodeAverage& node) const {
  if (node.pending) {
    node.average.add_repeated(std::span<const TimePoint>(times_).subspan(node.pending_from),
                              node.value);
    node.pending_from = times_.size();
  }
}

void ClusterBalanceCollector::set_value(std::size_t slot, double v) {
  NodeAverage& node = node_util_[slot];
  const std::size_t now = times_.size() - 1;
  if (node.pending) {
    if (v == node.value && std::signbit(v) == std::signbit(node.value)) {
      return;  // the same value goes on: its samples stay pending
    }
    node.average.add_repeated(
        std::span<const TimePoint>(times_).subspan(node.pending_from, now - node.pending_from),
        node.value);
  }
  node.value = v;
  node.pending_from = now;
  node.pending = true;
}

void ClusterBalanceCollector::on_sample(const ClusterSample& sample) {
  if (!times_.empty() && sample.at < times_.back()) {
    util_stddev_.add(sample.at, std::nullopt);  // throws, as a node's average would
  }
  // Samples with revisions list the same nodes in the same order: map them to their averages
  // once, not by name at every sample.
  const bool remap = !same_layout(sample, slot_of_.size(), slots_have_revisions_);
  if (remap) {
    // The nodes absent from this sample get no value from it on: their pending samples end here.
    for (NodeAverage& node : node_util_) {
      flush(node);
      node.pending = false;
    }
    map_nodes(sample);
  }
  times_.push_back(sample.at);
  const auto values = utils_.update(sample);
  // Each node with a value adds it to its average at every sample (lazily, set_value); the
  // allocation sums are integers, kept by difference.
  auto visit = [&](std::size_t n) {
    if (const auto& u = values[n]) {
      set_value(slot_of_[n], *u);
    } else if (NodeAverage& node = node_util_[slot_of_[n]]; node.pending) {
      // No value from this sample on: the samples before it keep the previous one.
      node.average.add_repeated(std::span<const TimePoint>(times_).subspan(
                                    node.pending_from, times_.size() - 1 - node.pending_from),
                                node.value);
      node.pending = false;
    }
    allocated_ += sample.nodes[n].gpus_allocated - allocated_of_[n];
    allocatable_ += sample.nodes[n].gpus_allocatable - allocatable_of_[n];
    allocated_of_[n] = sample.nodes[n].gpus_allocated;
    allocatable_of_[n] = sample.nodes[n].gpus_allocatable;
  };
  if (utils_.changes().all()) {
    allocated_of_.assign(sample.nodes.size(), 0);
    allocatable_of_.assign(sample.nodes.size(), 0);
    allocated_ = 0;
    allocatable_ = 0;
    for (std::size_t n = 0; n < sample.nodes.size(); ++n) {
      visit(n);
    }
  } else {
    for (const int n : utils_.changes().changed()) {
      visit(static_cast<std::size_t>(n));
    }
  }
  // The spread and mean are sums over every node in node order: recomputed only when a value
  // changed, else the previous sample's (the same sums of the same values).
  if (utils_.defined_changed()) {
    const std::span<const double> utils = utils_.defined();
    spread_ = population_stddev(utils);
    mean_.reset();
    if (!utils.empty()) {
      double sum = 0.0;
      for (const double u : utils) {
        sum += u;
      }
      mean_ = sum / static_cast<double>(utils.size());
    }
  }
  util_stddev_.add(sample.at, spread_);
  util_stddev_busy_.add(sample.at, sample.pending_pods > 0 ? spread_ : std::nullopt);
  util_mean_.add(sample.at, mean_);
  std::optional<double> rate;
  if (allocatable_ > 0) {
    rate = static_cast<double>(allocated_) / static_cast<double>(allocatable_);
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
    NodeAverage node = node_util_[slot];            // a copy: finish() leaves this as it is
    flush(node);
    if (const auto m = node.average.mean(end)) {
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
