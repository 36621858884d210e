#pragma once
/// Kueue-style queues and quotas (docs/quotas.md; Kueue v1beta1 API,
/// kubernetes-sigs/kueue, concepts "Cluster Queue", "Local Queue", "Preemption"). A job names
/// a LocalQueue with the pod label `kueue.x-k8s.io/queue-name`; each LocalQueue points at a
/// ClusterQueue, which holds a nominal quota of each resource it covers (`nvidia.com/gpu`,
/// `cpu`, `memory`, `pods` or an extended resource) per resource flavour (ResourceFlavor: node
/// labels its pods are sent to; a resource group's flavours are tried in order as Kueue's
/// flavorassigner does), may belong to a cohort, borrow the cohort's unused quota up to its
/// borrowingLimit, lend it no more than its lendingLimit, and reclaim its own quota lent out
/// (`reclaimWithinCohort`). The quota is an extra admission condition on top of the job-level
/// policy's order and the cluster's GPUs.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tidesim/sim/admission/tas_model.hpp"
#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/workloads/job.hpp"

namespace tidesim {

/// The pod label naming a job's LocalQueue (Kueue's).
using workloads::kQueueNameLabel;

/// The quota's resource names with a meaning of their own: kGpuResource (sim/api/api.hpp),
/// `cpu`, `memory` and `pods`; any other is an extended resource, counted from the pods'
/// `requests.extended`.

/// A ClusterQueue's quota of one resource (Kueue's `flavors[].resources[]`), in the resource's
/// unit: whole GPUs, CPU millicores, memory bytes, pods, or the extended resource's count.
struct ResourceQuota {
  /// False: the queue does not cover the resource (its use is not limited by this queue).
  bool covered = false;
  std::int64_t nominal = 0;
  /// borrowingLimit: how much above nominal it may borrow; nullopt: no limit (Kueue's default).
  std::optional<std::int64_t> borrowing_limit;
  /// lendingLimit: how much of its nominal quota the cohort may borrow; nullopt: all of it.
  std::optional<std::int64_t> lending_limit;
  /// The part of nominal it never lends: nominal - lendingLimit (0 without a lendingLimit).
  std::int64_t guaranteed() const;
};

/// preemption.withinClusterQueue: which admitted jobs of its own queue a job may suspend.
enum class WithinClusterQueue {
  kNever,
  /// Lower priority.
  kLowerPriority,
  /// Lower priority, or equal priority and submitted after it.
  kLowerOrNewerEqualPriority,
};

/// preemption.reclaimWithinCohort: which admitted jobs of the cohort's borrowing queues a job
/// may suspend.
enum class ReclaimWithinCohort { kNever, kLowerPriority, kAny };

/// A ResourceFlavor (Kueue's `spec.nodeLabels`): an admitted job's pods get these labels as a
/// nodeSelector. Flavours named by a queue but not declared (allowed only when no flavour is
/// declared and the group has one flavour) have no labels, as has the GPU shorthand's.
struct ResourceFlavor {
  std::string name;
  std::map<std::string, std::string> node_labels;
  /// spec.topologyName: the Kueue Topology (QuotaConfig::topologies) its nodes are grouped by for
  /// topology-aware scheduling; empty: none (docs/topology-aware.md, "In runs").
  std::string topology_name;
  /// True when declared under `resource_flavors:` (then `where` and `path` locate it).
  bool declared = false;
  SourceLocation where;
  std::string path;
};

/// A Kueue Topology (kueue.x-k8s.io Topology, spec.levels[].nodeLabel): node label keys,
/// outermost first; kubernetes.io/hostname may only be the last.
struct KueueTopology {
  std::string name;
  std::vector<std::string> levels;
  SourceLocation where;
  std::string path;
};

/// One (flavour, resource) pair some queue holds a quota of (Kueue's FlavorResource): usage,
/// quotas and the cohort's sums are kept per pair.
struct FlavorResource {
  /// Indices into QuotaConfig::flavors and QuotaConfig::resources.
  int flavor = 0;
  int resource = 0;
};

/// A ClusterQueue's resource group: its covered resources and its flavours, in the order tried.
struct ResourceGroup {
  /// Indices into QuotaConfig::resources and QuotaConfig::flavors.
  std::vector<int> resources;
  std::vector<int> flavors;
};

/// flavorFungibility.whenCanBorrow: a flavour that fits only by borrowing is taken (kBorrow,
/// Kueue's default) or the next flavour is tried first (kTryNextFlavor).
enum class WhenCanBorrow { kBorrow, kTryNextFlavor };
/// flavorFungibility.whenCanPreempt: a flavour that fits only by preempting is taken (kPreempt)
/// or the next flavour is tried first (kTryNextFlavor, Kueue's default).
enum class WhenCanPreempt { kPreempt, kTryNextFlavor };

/// One ClusterQueue.
struct ClusterQueueConfig {
  std::string name;
  /// Empty: in no cohort (it can neither borrow nor lend).
  std::string cohort;
  /// Indexed like QuotaConfig::slots (like QuotaConfig::resources when there are no slots: one
  /// implicit flavour).
  std::vector<ResourceQuota> quota;
  /// Its resource groups; empty: one group of every covered resource with the implicit flavour
  /// (QuotaConfig without slots).
  std::vector<ResourceGroup> groups;
  WhenCanBorrow when_can_borrow = WhenCanBorrow::kBorrow;
  WhenCanPreempt when_can_preempt = WhenCanPreempt::kTryNextFlavor;
  /// queueingStrategy: StrictFIFO (true: a head that does not fit blocks the queue) or
  /// BestEffortFIFO (false, Kueue's default: later jobs that fit are admitted).
  bool strict_fifo = false;
  /// Kueue's defaults: Never, Never.
  WithinClusterQueue within_cluster_queue = WithinClusterQueue::kNever;
  ReclaimWithinCohort reclaim_within_cohort = ReclaimWithinCohort::kNever;
  SourceLocation where;
};

/// The `queues:` part of a policy's `admission:` mapping.
struct QuotaConfig {
  /// Every resource some queue covers; `nvidia.com/gpu` first when covered.
  std::vector<std::string> resources;
  /// Every flavour: the declared ones in order, then those named without a declaration.
  std::vector<ResourceFlavor> flavors;
  /// The Topology objects the flavours name (`topologies:`).
  std::vector<KueueTopology> topologies;
  /// Kueue's feature gates that change topology-aware placement (`tas_feature_gates:`), as
  /// Kueue's --feature-gates would set them; names and defaults in sim/admission/tas_model.hpp.
  std::map<std::string, bool> tas_feature_gates;
  /// Every (flavour, resource) pair some queue has a quota of; empty: one implicit flavour, pair
  /// r being resource r (configurations built by hand).
  std::vector<FlavorResource> slots;
  std::vector<ClusterQueueConfig> cluster_queues;
  /// LocalQueue name -> index into cluster_queues.
  std::map<std::string, int> local_queues;
  SourceLocation where;
  /// The field path of the `queues:` mapping (for errors).
  std::string path;
};

/// The index into QuotaConfig::slots of (flavor, resource); -1 when no queue has it.
int slot_of(const QuotaConfig& quotas, int flavor, int resource);

/// A queue's nominal quota of `resource`, summed over its flavours.
std::int64_t nominal_of(const QuotaConfig& quotas, int queue, int resource);

/// What a job asks of each resource of `quotas.resources`: the sum over its pods of their
/// requests (`nvidia.com/gpu`: whole GPUs per pod as workloads::job_gpus counts them; `cpu`:
/// millicores; `memory`: bytes; `pods`: its pods; others: `requests.extended`), a leader's pod
/// (JobSpec::leader) included.
std::vector<std::int64_t> quota_requests(const QuotaConfig& quotas, const workloads::JobSpec& job);

/// What the quota walk knows of one active job, in the policy's order.
struct QuotaJob {
  int id = 0;
  /// Its GPUs (the cluster's capacity is checked in GPUs).
  int gpus = 0;
  /// Its requests, indexed like QuotaConfig::resources (quota_requests).
  std::vector<std::int64_t> requests;
  /// Index into QuotaConfig::cluster_queues; -1: the job names no queue (no quota applies).
  int queue = -1;
  /// Admitted now, and kept whatever the walk decides unless reclaimed (non-preemptive policies)
  /// or only a candidate like any other (preemptive ones: `kept` false).
  bool admitted = false;
  bool kept = false;
  /// When it was last admitted (newest first is the reclaim order).
  TimePoint admitted_at{};
  /// Its place in submission order (earlier: smaller).
  std::int64_t order = 0;
  /// Its pods' priority (PodSpec::priority).
  std::int32_t priority = 0;
  /// Kept jobs: the flavour each resource was assigned (index into QuotaConfig::flavors,
  /// indexed like QuotaConfig::resources, -1 for none); empty: the implicit flavour.
  std::vector<int> flavors;
  /// Its pods' nodeSelector: a flavour whose node labels contradict it is skipped.
  std::map<std::string, std::string> node_selector;
  /// Its PodSet's topology request (tas::request_from_annotations; nullptr: it asks none),
  /// owned by the caller. When some flavour has a topology, a flavour that tas::flavor_mismatch
  /// refuses for it is skipped.
  const tas::TopologyRequest* topology = nullptr;
  /// The resources its pods request themselves (before Kueue's resource transformations), owned
  /// by the caller; nullptr: those of `requests`. A flavour without a topology is open to a job
  /// that asks a topology when its group covers none of them (Kueue's
  /// hasOverlapWithPodRequestedResources: a quota-only resource of a transformation).
  const std::set<std::string>* pod_resources = nullptr;
};

struct QuotaDecision {
  /// Jobs to run now (ascending ids): kept ones not reclaimed, plus those admitted.
  std::vector<int> chosen;
  /// Admitted jobs reclaimed (ascending ids): to be suspended.
  std::vector<int> reclaimed;
  /// Jobs admitted by this walk -> the flavour of each resource (as QuotaJob::flavors).
  std::map<int, std::vector<int>> flavors;
};

/// The quota walk. `jobs` are in the policy's order with the kept ones first. Each job not kept
/// first gets a flavour per resource group (Kueue's flavorassigner.go, findFlavorForPodSets):
/// the group's flavours in order, skipping those Kueue's checkPodSetAndFlavorMatchForTAS refuses
/// (tas::flavor_mismatch, when some flavour of `quotas` has a topology: a flavour without one for
/// a job that asks a topology, one whose topology lacks the level it asks, one with a topology
/// for a job that asks none in a queue not all of whose flavours have one) and those whose node
/// labels contradict the job's nodeSelector; a flavour fits when every resource of the group the
/// job asks fits its (flavour, resource) quota; one that fits without borrowing is taken; one that
/// fits by borrowing is taken with whenCanBorrow Borrow, else the next is tried; one where
/// preemption would make room is taken with whenCanPreempt Preempt, else the next is tried; when
/// the walk ends without taking one, the best seen is taken (fit before preempt, then not
/// borrowing; the first of equals); none: the job waits. Usage and quotas below are then per
/// (flavour, resource). It is admitted when its GPUs fit the cluster's free GPUs and each resource
/// r its ClusterQueue q covers fits (request <= available(q, r), Kueue's
/// pkg/cache/resource_node.go), with u the usage, N the nominal quota, G = max(0, N - lendingLimit)
/// (0 without one) the guaranteed part:
///   outside a cohort: available = N(q) - u(q);
///   in cohort c: available = max(0, G(q) - u(q)) + min(Q(c) - U(c), B(q)) where
///     Q(c) = sum over c's queues of N - G (what they lend), U(c) = sum of max(0, u - G),
///     B(q) = (N(q) - G(q)) - max(0, u(q) - G(q)) + borrowingLimit(q) (no limit without one).
/// A job that does not fit suspends chosen jobs as Kueue's preemptor (getTargets in
/// pkg/scheduler/preemption/preemption.go), when that makes it fit:
///  - the resources needing preemption are those it asks that its queue lacks (request >
///    available); the candidates use one of them and are: jobs of its own queue of lower priority
///    (withinClusterQueue LowerPriority) or also of equal priority submitted after it
///    (LowerOrNewerEqualPriority); jobs of the cohort's other queues that borrow one of them
///    (u > N), of any priority (reclaimWithinCohort Any) or lower (LowerPriority);
///  - ordered: other queues' first, then lower priority first, then newest admitted first (jobs
///    chosen in this walk count as newest, latest first);
///  - removed in that order (another queue's only while that queue still borrows a resource
///    needing preemption) until the job fits; then, from the second last back, each is put back
///    if the job still fits (Kueue's fillBackWorkloads). If it cannot fit, none is suspended;
///  - with candidates in other queues, this is done first without letting the job borrow (it
///    must end within its nominal quota; tried only when its queue is under its nominal quota of
///    every resource needing preemption), then with its own queue's candidates only, borrowing
///    allowed; with only its own queue's candidates, borrowing allowed.
/// A job that does not fit in a StrictFIFO queue blocks the rest of that queue.
/// `topology` (topology-aware scheduling, docs/topology-aware.md "In runs" and "Preemption"):
/// when set, a job not kept that got its flavours and fits its quota and the cluster's GPUs is
/// asked `fits` (Kueue's flavour assignment checks the quota, then places the topology). A job
/// whose flavour has a topology and that does not fit its quota or its topology needs
/// preemption as Kueue's flavor assigner marks it (assignFlavors in
/// pkg/scheduler/flavorassigner/flavorassigner.go: Preempt, or NoFit when it would not fit even
/// with no TAS workload, `simulate` with `empty`): every resource it asks then needs preemption
/// (updateModeForTASRequests), and the victims are chosen as above with the topology in the fit
/// test (Kueue's workloadFits in pkg/scheduler/preemption/preemption.go): after each removal
/// the job must fit its quota and `simulate` with the removed jobs given back. The victims are
/// then `preempt`ed (their usage leaves the snapshots for the rest of the walk) and the job is
/// placed by `fits`. `commit` is called for each job the walk admits, in order, so that the
/// next `fits` sees its placement.
struct TopologyCheck {
  std::function<bool(const QuotaJob& job, const std::vector<int>& flavors)> fits;
  std::function<void(int job)> commit;
  /// Whether `job` would fit its topology with the admitted jobs `without` gone (their pods'
  /// usage given back in their domains) or, `empty`, with no TAS workload's usage (Kueue's
  /// WithSimulateEmpty); true when its flavours have no topology. Changes nothing.
  std::function<bool(const QuotaJob& job, const std::vector<int>& flavors,
                     const std::vector<int>& without, bool empty)>
      simulate;
  /// Admitted job `job` is preempted by the walk: its usage is given back for the rest of it.
  std::function<void(int job)> preempt;
};
QuotaDecision select_with_quotas(const std::vector<QuotaJob>& jobs, const QuotaConfig& quotas,
                                 std::int64_t capacity, const TopologyCheck& topology = {});

}  // namespace tidesim
