#pragma once
// A harness for Kueue's scheduler-level TAS cases that involve more than one ResourceFlavor or
// ClusterQueue (kubernetes-sigs/kueue pkg/scheduler/scheduler_tas_test.go): the case's flavors,
// Topologies, ClusterQueues (with their cohort) and workloads become a QuotaConfig and QuotaJobs
// for the quota walk a run uses (select_with_quotas, sim/admission/quota.hpp, with its flavour
// assignment and tas::flavor_mismatch), and its TopologyCheck places each job on its flavour's
// TasSnapshot as sim/model/topology_admission.cpp does: one snapshot per flavour with a
// topology, the usage of every admission charged to each snapshot of the same topology (flavours
// that share nodes see each other's usage: Kueue's TASHandleOverlappingFlavors). A workload is
// one PodSet (a run's job).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/admission/quota.hpp"
#include "tidesim/sim/admission/tas_snapshot.hpp"

namespace tidesim::tas {

struct CycleFlavor {
  std::string name = {};
  std::map<std::string, std::string> node_labels = {};
  std::string topology = {};  // "": none
};

struct CycleQueue {
  std::string name = {};
  std::string cohort = {};
  /// Its one resource group: flavour name -> nominal quota per resource (cpu in millicores,
  /// memory in bytes), in the order tried.
  std::vector<std::pair<std::string, ResourceMap>> flavors = {};
  WithinClusterQueue within = WithinClusterQueue::kNever;
  ReclaimWithinCohort reclaim = ReclaimWithinCohort::kNever;
};

struct CycleWorkload {
  std::string name = {};
  int queue = 0;
  std::int32_t priority = 0;
  TasPodSet podset = {};
  /// Admitted already: its flavour and topologyAssignment.
  std::string admitted_flavor = {};
  std::optional<TopologyAssignment> admitted_assignment = {};
};

struct CycleCase {
  std::vector<TasNode> nodes;
  std::map<std::string, std::vector<std::string>> topologies;  // name -> levels
  std::vector<CycleFlavor> flavors;
  std::vector<CycleQueue> queues;
  std::vector<CycleWorkload> workloads;
};

struct CycleOutcome {
  bool admitted = false;
  std::string flavor;  // of the first resource it asks
  std::optional<TopologyAssignment> assignment;
  std::string reason;   // the last placement's refusal
  std::string refusal;  // the first placement's refusal (before any preemption)
  /// An admitted workload the cycle preempted (Kueue's Evicted condition, reason Preempted).
  bool preempted = false;
};

/// The pending workloads (indices) in the order of Kueue's classicalIterator
/// (pkg/scheduler/scheduler.go): those within their queue's nominal quota before those that
/// borrow, then higher priority, then the order given (creation).
std::vector<std::size_t> kueue_cycle_order(const CycleCase& c);

/// One pass of the quota walk over the admitted workloads and the pending ones in `order`;
/// the outcome of each pending workload, and of each admitted one it preempted, by name. A
/// preemptor is admitted in the same pass once its victims are gone (a run's walk); Kueue's
/// preemptor waits for them to end and is admitted at a later cycle.
std::map<std::string, CycleOutcome> run_cycle(const CycleCase& c,
                                              const std::vector<std::size_t>& order);

/// One gibibyte, the cases' `Gi`.
inline constexpr std::int64_t kGi = std::int64_t{1} << 30;

/// An assignment at the hostname level: `count` pods on each host, in the order given.
TopologyAssignment on_hosts(std::vector<std::pair<std::string, std::int32_t>> hosts);

}  // namespace tidesim::tas
