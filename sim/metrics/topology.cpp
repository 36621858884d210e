#include "tidesim/sim/metrics/topology.hpp"

#include <algorithm>
#include <numeric>

#include "tidesim/sim/engine/statistics.hpp"
#include "tidesim/sim/metrics/metric_names.hpp"

namespace tidesim::metrics {
namespace {

// "network.topology.nvidia.com/leaf" -> "leaf", "kubernetes.io/hostname" -> "hostname".
std::string short_level(const std::string& label) {
  const std::size_t slash = label.rfind('/');
  return slash == std::string::npos ? label : label.substr(slash + 1);
}

}  // namespace

void TopologyCollector::on_sample(const ClusterSample& sample) {
  const std::size_t tiers = options_.tier_domain.size();
  if (tiers == 0) {
    return;
  }
  if (sampled_) {
    const double dt = to_seconds(sample.at - last_at_);
    for (std::size_t t = 0; t < tiers; ++t) {
      stranded_gpu_s_[t] += dt * stranded_now_[t];
    }
    free_gpu_s_ += dt * free_now_;
  } else {
    stranded_gpu_s_.assign(tiers, 0.0);
    stranded_now_.assign(tiers, 0.0);
  }
  sampled_ = true;
  last_at_ = sample.at;
  free_now_ = 0.0;
  for (const NodeState& n : sample.nodes) {
    free_now_ += std::max(0, n.gpus_allocatable - n.gpus_allocated);
  }
  for (std::size_t t = 0; t < tiers; ++t) {
    const std::vector<int>& domain = options_.tier_domain[t];
    const std::size_t count = std::min(sample.nodes.size(), domain.size());
    // Per domain, by its index less the smallest: (allocated, free), summed in domain order.
    const auto [low, high] = std::minmax_element(domain.begin(), domain.begin() + count);
    const int first = count > 0 ? *low : 0;
    std::vector<std::pair<int, int>> used_free(count > 0 ? *high - first + 1 : 0, {0, 0});
    for (std::size_t k = 0; k < count; ++k) {
      const NodeState& n = sample.nodes[k];
      auto& [used, free] = used_free[static_cast<std::size_t>(domain[k] - first)];
      used += n.gpus_allocated;
      free += std::max(0, n.gpus_allocatable - n.gpus_allocated);
    }
    double stranded = 0.0;
    for (const auto& uf : used_free) {
      if (uf.first > 0 && uf.second > 0) {
        stranded += uf.second;
      }
    }
    stranded_now_[t] = stranded;
  }
}

void TopologyCollector::on_topology(const TopologyEvent& event) {
  if (!event.admitted) {
    ++refusals_;
    refused_[event.job] = true;
    return;
  }
  ++admitted_;
  waits_.push_back(event.topology_wait_s);
  for (const auto& [label, count] : event.span) {
    const std::string level = short_level(label);
    if (std::find(levels_.begin(), levels_.end(), level) == levels_.end()) {
      levels_.push_back(level);
    }
    span_sum_[level] += count;
  }
}

void TopologyCollector::finish(TimePoint end, MetricValues& out) const {
  if (sampled_) {
    const double dt = std::max(0.0, to_seconds(end - last_at_));
    double free = free_gpu_s_ + dt * free_now_;
    for (std::size_t t = 0; t < stranded_gpu_s_.size(); ++t) {
      const double stranded = stranded_gpu_s_[t] + dt * stranded_now_[t];
      const double span = to_seconds(end - TimePoint{});
      const std::string& tier = options_.tier_names[t];
      if (span > 0) {
        out[per_queue_metric("stranded_gpus_mean", tier)] = stranded / span;
      }
      if (free > 0) {
        out[per_queue_metric("stranded_gpus_share", tier)] = stranded / free;
      }
    }
  }
  if (admitted_ == 0 && refusals_ == 0) {
    return;
  }
  out["tas_admitted"] = admitted_;
  out["tas_refusals"] = refusals_;
  out["tas_refused_jobs"] = static_cast<double>(refused_.size());
  if (!waits_.empty()) {
    out["tas_topology_wait_mean_s"] =
        std::accumulate(waits_.begin(), waits_.end(), 0.0) / static_cast<double>(waits_.size());
    out["tas_topology_wait_p99_s"] = *quantile(waits_, 0.99);
    for (const auto& [level, sum] : span_sum_) {
      out[per_queue_metric("tas_span_mean", level)] = sum / static_cast<double>(admitted_);
    }
  }
}

}  // namespace tidesim::metrics
