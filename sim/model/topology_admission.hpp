#pragma once
/// Kueue's topology-aware scheduling (TAS) inside a run (docs/topology-aware.md, "In runs"): the
/// admission rule the quota walk asks (sim/admission/quota.hpp, TopologyCheck). A job whose
/// assigned flavour names a Topology is placed by Kueue's algorithm (tas::TasSnapshot, the same
/// code `tidesim admit` and the ported Kueue cases run) on the cluster as it is at the decision:
/// each node's allocatable minus the requests of the pods bound to it (and one `pods` unit each,
/// of kubelet's default maxPods, 110), minus the pods of admitted TAS jobs not yet bound, counted
/// in the domain Kueue assigned them. A job whose required topology does not fit is not
/// admitted (it waits, with Kueue's reason); an admitted one gets its topologyAssignment, and
/// each of its pods is then restricted to the nodes of its domain (Kueue's TopologyUngater: a
/// node selector on the domain's level values, here a required node affinity on the domain's
/// node names). A job with a leader (workloads::JobSpec::leader) is two PodSets, "worker" and
/// "leader", placed together in one find_assignments call as Kueue places a Workload's PodSets
/// (a PodSet group when both carry `podset-group-name`); its pods take their domains in the
/// job's pod order, the workers' then the leader's.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tidesim/sim/admission/quota.hpp"
#include "tidesim/sim/admission/tas_snapshot.hpp"
#include "tidesim/sim/model/run_context.hpp"

namespace tidesim {

/// Kubelet's default --max-pods (the `pods` allocatable of a node: Kubernetes' KubeletConfiguration
/// maxPods default, 110).
inline constexpr std::int64_t kDefaultMaxPods = 110;

/// The outcome of one placement attempt, for the run's signals and metrics.
struct TopologyPlacement {
  std::string topology;
  /// Empty when admitted.
  std::string reason;
  /// One per PodSet, in the job's pod order (the workers', then a leader's).
  std::vector<tas::TopologyAssignment> assignments;
};

class TopologyAdmission {
 public:
  /// Throws InputError (at the queues' or the topology's place) when a job's annotations are
  /// bad or name a level that no topology of the flavours has.
  TopologyAdmission(RunContext& run, const QuotaConfig& quotas);

  /// Whether any flavour has a topology.
  bool active() const { return active_; }

  /// Starts a decision: at its first use in it, each kept snapshot is brought up to the cluster
  /// as it is now (the nodes whose usage or cordon changed since, by ClusterNode::changes; a
  /// cordon rebuilds it) and the unbound pods of admitted jobs are charged again.
  void begin();
  /// TopologyCheck::fits: true when job `job`'s flavours have no topology or its pods fit it.
  bool fits(int job, const std::vector<int>& flavors);
  /// TopologyCheck::commit: the job's placement, found by the last fits(), is taken.
  void commit(int job);
  /// TopologyCheck::simulate (Kueue's preemptor, docs/topology-aware.md "Preemption"): whether
  /// job `job` would fit with the admitted jobs `without` gone, or (`empty`) with every admitted
  /// TAS job gone: their pods' usage given back, a bound pod's on its node's domain and an
  /// unbound one's in its assigned domain. The snapshot is left as it was.
  bool simulate(int job, const std::vector<int>& flavors, const std::vector<int>& without,
                bool empty);
  /// TopologyCheck::preempt: admitted job `job` is preempted in this decision; its pods' usage
  /// is given back in every snapshot until the decision ends (its pods go when it is
  /// suspended).
  void preempt(int job);
  /// The topology request of job `job`'s (workers') PodSet, from its annotations (nullptr:
  /// none).
  const tas::TopologyRequest* request(int job) const {
    const auto& r = jobs_[static_cast<std::size_t>(job)].podsets.front().request;
    return r ? &*r : nullptr;
  }
  /// The job's last placement attempt (nullptr when it has none).
  const TopologyPlacement* last(int job) const;

  /// The nodes each pod of job `job` (by its place among the job's pods) may go to; empty: no
  /// restriction (no topology, or not admitted by it).
  const std::vector<std::shared_ptr<const std::vector<std::string>>>& pod_domains(int job) const;
  /// Job `job` ended or was suspended: its assignment is dropped.
  void release(int job);

  /// Whether job `job` is admitted with a topologyAssignment.
  bool admitted(int job) const;
  /// Kueue's node replacement (TASFailedNodeReplacement) for admitted job `job` whose node `node`
  /// failed: TasSnapshot::find_replacements on the cluster as it is now, `node` left out (not
  /// Ready) and the unbound pods of admitted jobs charged as at a decision. Found: the job's
  /// assignment becomes the merged one, and each of its pods whose domain was `node` takes a
  /// domain of the replacement (in pod order), the others keep theirs; true. An assignment with
  /// no domain on `node` (a topology whose lowest level is not the hostname) is kept: true.
  /// None fits: false, nothing changed; last() carries Kueue's reason.
  bool replace_node(int job, const std::string& node);

 private:
  /// One PodSet of a job: its name, request, one pod's requests and pod count, and its
  /// assignment when the job is admitted.
  struct PodSetTas {
    std::string name;
    std::optional<tas::TopologyRequest> request;
    tas::ResourceMap per_pod;
    int count = 1;
    tas::TopologyAssignment assignment;
  };
  struct JobTas {
    /// In the job's pod order: the workers ("main", or "worker" beside a leader), then a leader.
    std::vector<PodSetTas> podsets;
    /// Its placement when admitted, its pods' domains (their nodes and their level values), its
    /// topology and flavour indices; -1: none.
    int topology = -1;
    int flavor = -1;
    std::vector<std::shared_ptr<const std::vector<std::string>>> pod_domains;
    std::vector<std::vector<std::string>> pod_values;
    std::optional<TopologyPlacement> last;
    /// The assignment of the last fits(), pending commit.
    bool pending = false;
  };
  /// The topology index of the first flavour of `flavors` with one; -1 none.
  int topology_of(const std::vector<int>& flavors, int& flavor) const;
  /// A kept snapshot of one (topology, flavour): the nodes' ClusterNode::changes and cordons it
  /// was last brought up to, and whether it is up to date in this decision.
  struct Kept {
    std::unique_ptr<tas::TasSnapshot> snapshot;
    std::vector<std::uint64_t> changes;
    std::vector<char> unschedulable;
    bool current = false;
  };
  tas::TasSnapshot& snapshot(int topology, int flavor);
  /// A snapshot of the cluster now; the node named `left_out` is left out (not Ready).
  void build(Kept& kept, int topology, int flavor, const std::string& left_out = "") const;
  bool sync(Kept& kept) const;
  tas::TasNode tas_node(int n) const;
  /// The job's PodSets as Kueue's Workload lists them (a leader first, as its LeaderWorkerSet
  /// integration does).
  std::vector<tas::TasPodSet> podsets(int job) const;
  /// The job's PodSets read from its spec; throws InputError (the job named) when the
  /// annotations are bad or Kueue's webhook refuses them.
  void read_podsets(int j, const std::set<std::string>& levels);
  void charge_unbound(tas::TasSnapshot& s, int topology) const;
  /// What job `job`'s pods take in a snapshot of `topology`, per PodSet (in `podsets` order):
  /// each bound pod on its node's lowest domain, each unbound pod of an admitted job in its
  /// assigned domain.
  std::vector<tas::TopologyAssignment> usage_of(int job, int topology) const;
  /// The names of the nodes of the lowest-level domain `values` (empty when it has none).
  std::shared_ptr<const std::vector<std::string>> leaf_nodes(
      int topology, const std::vector<std::string>& values) const;
  /// The pods of PodSet `ps` (from the job's pod `first` on) that were on `node` take the
  /// domains `merged` adds; `merged` becomes its assignment.
  void replace_domains(JobTas& jt, std::size_t first, PodSetTas& ps,
                       const tas::TopologyAssignment& merged, const std::string& node) const;
  /// Sets the job's pod_domains and pod_values from its assignment, pod by pod in its order.
  void expand(JobTas& jt) const;

  RunContext& run_;
  const QuotaConfig& quotas_;
  tas::TasFeatureGates gates_;
  bool active_ = false;
  std::vector<JobTas> jobs_;
  /// The flavour and topology of each job's pending placement.
  std::map<int, std::pair<int, int>> pending_flavor_;
  /// Per topology: leaf domain id -> the names of its nodes (labels do not change in a run).
  std::vector<std::map<std::string, std::shared_ptr<const std::vector<std::string>>>> leaves_;
  /// The snapshots by (topology, flavour), built on first use and kept across decisions.
  std::map<std::pair<int, int>, Kept> snapshots_;
  /// The jobs with an assignment (JobTas::topology >= 0), in job order.
  std::set<int> admitted_;
  /// The jobs preempted in this decision (preempt()).
  std::set<int> preempted_;
};

}  // namespace tidesim
