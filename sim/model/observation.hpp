#pragma once
/// What can be observed of the cluster: the true state of a node (per-card utilisation, memory,
/// NVLink use, the NVLink competition index, storage await), which the metric collectors sample,
/// and the node agent's view of it (the seed's ai-node-metrics), which telemetry carries to the
/// policies.
///
/// Cost follows what changes: a node's per-card figures are recomputed only when something they
/// are made of changed since they were last read (ClusterNode::changes: a pod bound or released,
/// a job started or stopped, re-rated, or its memory changed), and so are its allocation and
/// the await of its own data device (only its pods' input flows use it, and a change of their
/// rates re-rates their job); the await of a shared device is read at every sample. The values
/// are those a full recomputation gives, bit for bit; a sample visits only the nodes touched
/// since the previous one (Cluster::take_touched) and those on the shared data device.
/// ClusterSample::node_revisions tells the
/// collectors which nodes were recomputed (or whose await changed) since they last looked.
#include <cstdint>
#include <map>
#include <vector>

#include "tidesim/sim/api/run_signals.hpp"
#include "tidesim/sim/api/telemetry.hpp"
#include "tidesim/sim/model/run_context.hpp"

namespace tidesim {

class Observer {
 public:
  /// Observes `run`, which must outlive the observer (its cluster is built already). The run's
  /// one observer: cluster_sample() takes the cluster's touched nodes (Cluster::take_touched).
  explicit Observer(RunContext& run);
  // It keeps pointers into its own tables.
  Observer(const Observer&) = delete;
  Observer& operator=(const Observer&) = delete;

  /// The true state of node `n` now. The reference stays valid until the next call on this
  /// observer.
  const NodeState& node_state(int n);

  /// Brings `m` to what node `n`'s agent reports now: per-card memory utilisation, per-card GPU
  /// utilisation, the competition index and its data device's await (`sampled_at` is left to the
  /// caller). `revision` is the caller's record of the node's revision when `m` was last filled
  /// for this node (0 before the first call: revisions are at least 1 once a node was looked
  /// at). When it is still the node's revision, nothing the agent reports has changed since, so
  /// `m` is left as it is and false returned; otherwise `m` is refilled in place (its storage
  /// reused), `revision` updated and true returned.
  bool agent_sample(int n, NodeMetrics& m, std::uint64_t& revision);

  /// The whole cluster now, with `pending_pods` waiting to be scheduled. The reference stays
  /// valid until the next call on this observer.
  const ClusterSample& cluster_sample(int pending_pods);

 private:
  void refresh(int n);
  void compute_cards(int n);
  void refresh_await(int n);

  const RunContext& run_;
  Cluster& cluster_;  // run_'s, for take_touched()
  ClusterSample sample_;
  /// ClusterNode::changes when node n's per-card figures were computed (none yet: ~0).
  std::vector<std::uint64_t> computed_at_;
  /// Per node: each card's total NVLink bandwidth to the other cards (bytes/s), null without
  /// NVLink; one vector for the nodes of a topology (by_topology_), read hot by every node's.
  std::vector<const std::vector<double>*> nvlink_capacity_;
  std::map<const Topology*, std::vector<double>> by_topology_;
  /// Per node: its data device is the cluster's shared one.
  std::vector<char> shared_device_;
  /// The nodes whose data device is the shared one, ascending.
  std::vector<int> shared_nodes_;
  /// Scratch of cluster_sample(): the nodes touched since the previous sample.
  std::vector<int> touched_;
  bool sampled_ = false;  // cluster_sample() was called
};

}  // namespace tidesim
