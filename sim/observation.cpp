#include "sim/observation.hpp"

#include <algorithm>

#include "sim/api/telemetry.hpp"
#include "topologies/storage.hpp"

namespace tidesim {

NodeState node_state(const RunContext& run, int n) {
  const ClusterNode& node = run.cluster.node(n);
  NodeState s;
  s.name = node.name;
  const int cards = node.topology->gpu_count();
  s.gpu_utilization.assign(static_cast<std::size_t>(cards), 0.0);
  s.gpu_memory_used.assign(static_cast<std::size_t>(cards), 0);
  // Nodes without NVLink report no NVLink utilisation at all (not zeros), so that they stay
  // out of NVLink statistics.
  if (node.has_nvlink) {
    s.nvlink_utilization.assign(static_cast<std::size_t>(cards), 0.0);
  }
  s.gpu_memory_capacity = node.card_memory;
  for (int c = 0; c < cards; ++c) {
    s.gpu_memory_used[static_cast<std::size_t>(c)] = node.gpus->memory_used(c);
  }
  for (const int j : node.jobs) {
    const Job& job = run.jobs[static_cast<std::size_t>(j)];
    if (job.step.seconds <= 0) {
      continue;
    }
    // The card computes this job's kernels for compute_seconds (at full speed) per step.
    const double busy = job.profile->compute_seconds / job.step.seconds;
    const double sync = job.step.sync_seconds / job.step.seconds;
    const double ring_rate = job.ring ? run.fluid.rate(*job.ring) : 0.0;
    for (const int p : job.pods) {
      const Pod& pod = run.pods[static_cast<std::size_t>(p)];
      if (pod.node != n) {
        continue;
      }
      for (const auto& [card, workers] : card_counts(pod.cards)) {
        auto& u = s.gpu_utilization[static_cast<std::size_t>(card)];
        u = std::min(1.0, u + busy * workers);
        double nvlink_capacity = 0.0;
        for (int other = 0; other < cards; ++other) {
          if (other != card && node.topology->link(card, other) == LinkType::kNVLink) {
            nvlink_capacity += node.topology->bandwidth(card, other);
          }
        }
        if (nvlink_capacity > 0 && !s.nvlink_utilization.empty()) {
          auto& v = s.nvlink_utilization[static_cast<std::size_t>(card)];
          v = std::min(1.0, v + ring_rate * sync / nvlink_capacity);
        }
      }
    }
  }
  s.nvlink_competition_index = nvlink_competition_index(node.nvlink_pods, cards);
  const StorageResource& d = run.cluster.devices()[static_cast<std::size_t>(node.device)];
  s.storage_await_ms = storage_await_ms(d.device, run.fluid.utilisation(d.resource),
                                        run.scenario.cluster.max_await_ms);
  s.gpus_allocatable = node.gpus->schedulable_units();
  s.gpus_allocated =
      static_cast<int>(run.cluster.view().nodes[static_cast<std::size_t>(n)].requested.gpus);
  return s;
}

NodeMetrics agent_sample(const RunContext& run, int n) {
  const NodeState s = node_state(run, n);
  NodeMetrics m;
  for (const auto used : s.gpu_memory_used) {  // none on a node without GPUs
    m.gpu_memory_utilization.push_back(static_cast<double>(used) /
                                       static_cast<double>(s.gpu_memory_capacity));
  }
  m.nvlink_competition_index = s.nvlink_competition_index;
  const ClusterNode& node = run.cluster.node(n);
  m.storage_await_ms[run.cluster.devices()[static_cast<std::size_t>(node.device)].device.name] =
      s.storage_await_ms;
  return m;
}

ClusterSample cluster_sample(const RunContext& run, int pending_pods) {
  ClusterSample c;
  c.at = run.sim.now();
  c.nodes.reserve(run.cluster.nodes().size());
  for (std::size_t n = 0; n < run.cluster.nodes().size(); ++n) {
    c.nodes.push_back(node_state(run, static_cast<int>(n)));
  }
  c.pending_pods = pending_pods;
  for (const auto& j : run.jobs) {
    c.running_jobs += j.phase == JobPhase::kRunning;
  }
  return c;
}

}  // namespace tidesim
