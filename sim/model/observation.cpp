#include "tidesim/sim/model/observation.hpp"

#include <algorithm>
#include <map>

#include "tidesim/sim/api/telemetry.hpp"
#include "tidesim/topologies/storage.hpp"

namespace tidesim {

namespace {

// Each card's total NVLink bandwidth to the other cards of `topology`, in card order.
std::vector<double> card_nvlink_capacity(const Topology& topology) {
  const int cards = topology.gpu_count();
  std::vector<double> capacity(static_cast<std::size_t>(cards), 0.0);
  for (int card = 0; card < cards; ++card) {
    for (int other = 0; other < cards; ++other) {
      if (other != card && topology.link(card, other) == LinkType::kNVLink) {
        capacity[static_cast<std::size_t>(card)] += topology.bandwidth(card, other);
      }
    }
  }
  return capacity;
}

}  // namespace

Observer::Observer(RunContext& run) : run_(run), cluster_(run.cluster) {
  const auto& nodes = run.cluster.nodes();
  sample_.nodes.resize(nodes.size());
  sample_.node_revisions.assign(nodes.size(), 0);
  computed_at_.assign(nodes.size(), ~std::uint64_t{0});
  nvlink_capacity_.resize(nodes.size());
  shared_device_.resize(nodes.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const ClusterNode& node = nodes[n];
    NodeState& s = sample_.nodes[n];
    s.name = node.name;
    const auto cards = static_cast<std::size_t>(node.topology->gpu_count());
    s.gpu_utilization.assign(cards, 0.0);
    s.gpu_memory_used.assign(cards, 0);
    // Nodes without NVLink report no NVLink utilisation at all (not zeros), so that they stay
    // out of NVLink statistics.
    if (node.has_nvlink) {
      s.nvlink_utilization.assign(cards, 0.0);
      auto [it, fresh] = by_topology_.try_emplace(node.topology.get());
      if (fresh) {
        it->second = card_nvlink_capacity(*node.topology);
      }
      nvlink_capacity_[n] = &it->second;
    }
    s.gpu_memory_capacity = node.card_memory;
    shared_device_[n] = run.cluster.devices()[static_cast<std::size_t>(node.device)].device.shared;
    if (shared_device_[n] != 0) {
      shared_nodes_.push_back(static_cast<int>(n));
    }
  }
}

void Observer::compute_cards(int n) {
  const ClusterNode& node = run_.cluster.node(n);
  NodeState& s = sample_.nodes[static_cast<std::size_t>(n)];
  const int cards = node.topology->gpu_count();
  std::fill(s.gpu_utilization.begin(), s.gpu_utilization.end(), 0.0);
  std::fill(s.nvlink_utilization.begin(), s.nvlink_utilization.end(), 0.0);
  for (int c = 0; c < cards; ++c) {
    s.gpu_memory_used[static_cast<std::size_t>(c)] = node.gpus->memory_used(c);
  }
  static const std::vector<double> kNone;
  const std::vector<double>* kept = nvlink_capacity_[static_cast<std::size_t>(n)];
  const std::vector<double>& nvlink_capacity = kept ? *kept : kNone;
  for (const int j : node.jobs) {
    const Job& job = run_.jobs[static_cast<std::size_t>(j)];
    if (job.step.seconds <= 0) {
      continue;
    }
    // The card computes this job's kernels for the step's compute seconds at full speed per
    // step (workloads::StepTime::gpu_utilization: the catalogue model's, or for a measured job
    // its measured step less the gradient sync, Execution::update_rate).
    const double busy = job.step.gpu_utilization;
    // NVLink: each card of a ring sends the ring's flow rate to the next card over its links.
    // That rate is already a time average over the step's compute and all-reduce bursts: the
    // ring's flow is capped at its average demand (all-reduce volume / step seconds,
    // Execution::cap_rings) and gets less under contention. So the card's utilisation is
    // rate / the card's NVLink capacity, with no further duty cycle (sync / step) applied.
    const double ring_rate = job.ring ? run_.fluid.rate(*job.ring) : 0.0;
    // Its pods here, in its pod order (ClusterNode::running_pods).
    for (const int p : node.running_pods) {
      const Pod& pod = run_.pods[static_cast<std::size_t>(p)];
      if (pod.job != j) {
        continue;
      }
      for_each_card_count(pod.cards, [&](int card, int workers) {
        // Not clamped: the processes of a card are never given more than its time
        // (divide_card_time), and the invariant suite checks that the sum stays within 1.
        s.gpu_utilization[static_cast<std::size_t>(card)] += busy * workers;
        if (nvlink_capacity.empty()) {
          return;
        }
        const double capacity = nvlink_capacity[static_cast<std::size_t>(card)];
        if (capacity > 0) {
          auto& v = s.nvlink_utilization[static_cast<std::size_t>(card)];
          v = std::min(1.0, v + ring_rate / capacity);
        }
      });
    }
  }
  s.nvlink_competition_index = nvlink_competition_index(node.nvlink_pods, cards);
  s.gpus_allocatable = node.gpus->schedulable_units();
  s.gpus_allocated = static_cast<int>(run_.cluster.requested_gpus(n));
  refresh_await(n);
}

void Observer::refresh_await(int n) {
  const ClusterNode& node = run_.cluster.node(n);
  const StorageResource& d = run_.cluster.devices()[static_cast<std::size_t>(node.device)];
  double& await = sample_.nodes[static_cast<std::size_t>(n)].storage_await_ms;
  const double now = storage_await_ms(d.device, run_.fluid.utilisation(d.resource),
                                      run_.scenario.cluster.max_await_ms);
  if (now != await) {
    await = now;
    ++sample_.node_revisions[static_cast<std::size_t>(n)];
  }
}

void Observer::refresh(int n) {
  const ClusterNode& node = run_.cluster.node(n);
  auto& seen = computed_at_[static_cast<std::size_t>(n)];
  if (seen != node.changes) {  // per-card figures, allocation and (own device) await
    compute_cards(n);
    ++sample_.node_revisions[static_cast<std::size_t>(n)];
    seen = node.changes;
  }
  // A node's own data device carries only its pods' input flows, whose rates change only with a
  // change of the node (their job is re-rated); a shared device changes with any node's.
  if (shared_device_[static_cast<std::size_t>(n)]) {
    refresh_await(n);
  }
}

const NodeState& Observer::node_state(int n) {
  refresh(n);
  return sample_.nodes[static_cast<std::size_t>(n)];
}

bool Observer::agent_sample(int n, NodeMetrics& m, std::uint64_t& revision) {
  const NodeState& s = node_state(n);
  const std::uint64_t now = sample_.node_revisions[static_cast<std::size_t>(n)];
  if (revision == now) {
    return false;
  }
  revision = now;
  m.gpu_memory_utilization.resize(s.gpu_memory_used.size());  // none on a node without GPUs
  for (std::size_t c = 0; c < s.gpu_memory_used.size(); ++c) {
    m.gpu_memory_utilization[c] =
        static_cast<double>(s.gpu_memory_used[c]) / static_cast<double>(s.gpu_memory_capacity);
  }
  m.gpu_utilization = s.gpu_utilization;
  m.nvlink_competition_index = s.nvlink_competition_index;
  // The node's one device: after the first fill, the map holds exactly its entry.
  const ClusterNode& node = run_.cluster.node(n);
  const std::string& device =
      run_.cluster.devices()[static_cast<std::size_t>(node.device)].device.name;
  if (m.storage_await_ms.size() != 1 || m.storage_await_ms.begin()->first != device) {
    m.storage_await_ms.clear();
  }
  m.storage_await_ms[device] = s.storage_await_ms;
  return true;
}

const ClusterSample& Observer::cluster_sample(int pending_pods) {
  sample_.at = run_.sim.now();
  // Only the nodes touched since the previous sample can have moved (ClusterNode::changes moves
  // only through Cluster::touch); the first sample computes every node. A node's refresh reads
  // nothing another node's writes, so their order does not matter. The await of a shared device
  // moves with any node's flows: those nodes are read at every sample.
  cluster_.take_touched(touched_);
  if (!sampled_) {
    sampled_ = true;
    touched_.resize(sample_.nodes.size());
    for (std::size_t n = 0; n < touched_.size(); ++n) {
      touched_[n] = static_cast<int>(n);
    }
  }
  for (const int n : touched_) {
    refresh(n);
  }
  for (const int n : shared_nodes_) {
    refresh(n);
  }
  sample_.pending_pods = pending_pods;
  sample_.running_jobs = run_.running_jobs;
  return sample_;
}

}  // namespace tidesim
