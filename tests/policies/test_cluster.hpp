#pragma once
// Small builders for policy tests.
#include <map>
#include <memory>
#include <string>

#include "tidesim/policies/framework.hpp"
#include "tidesim/sim/api/cluster_view.hpp"
#include "tidesim/sim/api/telemetry.hpp"

namespace tidesim::policies::testing {

/// The context of cycle 1 over `c` at time 0, without metrics.
inline CycleContext make_context(const ClusterView& c, bool record_reasons = true) {
  return CycleContext{.cluster = c,
                      .metrics = nullptr,
                      .now = TimePoint{},
                      .cycle = 1,
                      .latency = {},
                      .fallback_stage = 0,
                      .fallback_decided = false,
                      .node_selector_pin = std::nullopt,
                      .alerts = {},
                      .shared = {},
                      .pod_group = nullptr,
                      .record_reasons = record_reasons};
}

inline NodeInfo make_node(const std::string& name, std::int64_t cpu_milli, std::int64_t memory,
                          std::int64_t gpus = 0) {
  NodeInfo n;
  n.node.name = name;
  n.node.labels["kubernetes.io/hostname"] = name;
  n.node.allocatable.cpu_milli = cpu_milli;
  n.node.allocatable.memory_bytes = memory;
  n.node.allocatable.gpus = gpus;
  return n;
}

inline std::shared_ptr<PodSpec> make_pod(const std::string& name, std::int64_t cpu_milli,
                                         std::int64_t memory, std::int64_t gpus = 0) {
  auto p = std::make_shared<PodSpec>();
  p->name = name;
  p->requests.cpu_milli = cpu_milli;
  p->requests.memory_bytes = memory;
  p->requests.gpus = gpus;
  return p;
}

/// A MetricsSource answering from a fixed map, with a fixed latency; nodes not in the map fail.
class FixedMetrics : public MetricsSource {
 public:
  std::map<std::string, NodeMetrics> metrics;
  Duration latency = Duration::zero();
  mutable int queries = 0;
  MetricsAnswer query(const std::string& node, TimePoint) const override {
    ++queries;
    MetricsAnswer a;
    a.latency = latency;
    const auto it = metrics.find(node);
    if (it != metrics.end()) {
      a.metrics = it->second;
    }
    return a;
  }
};

inline NodeMetrics make_metrics(std::vector<double> cards, double nvlink, double await_ms) {
  NodeMetrics m;
  m.gpu_memory_utilization = std::move(cards);
  m.nvlink_competition_index = nvlink;
  m.storage_await_ms["nvme0n1p1"] = await_ms;
  return m;
}

}  // namespace tidesim::policies::testing
