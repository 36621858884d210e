#pragma once
/// The request and outcome of `tidesim admit` (tools/lib/tas_admit.hpp), shared by its two paths:
/// the topology alone, and a Workload in a ClusterQueue of the snapshot
/// (tools/lib/tas_admit_queue.hpp).
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tidesim/sim/admission/tas_model.hpp"

namespace tidesim::app {

struct AdmitRequest {
  std::string snapshot;  // a file or folder of Kubernetes objects
  std::string workload;  // a file with one Kueue Workload
  tas::TasFeatureGates gates;
  std::string flavor;  // empty: the Workload's queue decides, or the only flavor with a topology
  /// A Kueue Configuration file (`--kueue-config`): its resources.transformations apply to the
  /// quota; empty: none.
  std::string kueue_config = {};
};

/// What the ClusterQueue gave one PodSet (when the Workload's LocalQueue names a ClusterQueue of
/// the snapshot): its pod count (below the PodSet's count when partially admitted), the flavour
/// of each resource, and `delayedTopologyRequest` ("", "Pending" or "Ready").
struct PodSetQuota {
  std::int32_t count = 0;
  std::map<std::string, std::string> flavors;
  std::string delayed;
};

struct AdmitOutcome {
  std::string workload;  // namespace/name
  std::string flavor;
  std::string topology;
  /// Every PodSet of the Workload, in order. Kueue stops at the first that does not fit: the
  /// ones after it carry the reason "not tried: PodSet NAME does not fit".
  std::vector<tas::PodSetResult> podsets;
  /// The quota of each PodSet (same order); empty when the Workload's queue is not a
  /// ClusterQueue of the snapshot (then only the topology is checked).
  std::vector<PodSetQuota> quota = {};
  /// The ClusterQueue reserved quota for the Workload (Kueue's QuotaReserved).
  bool quota_reserved = false;
  /// The admission checks it waits for, "NAME (STATE)": quota is reserved and the Workload is
  /// not Admitted until they are Ready.
  std::vector<std::string> waiting_for = {};
  /// Every PodSet placed (or admitted without a topology), no check waited for and no placement
  /// delayed: Kueue's Admitted.
  bool admitted() const {
    return std::all_of(podsets.begin(), podsets.end(),
                       [](const tas::PodSetResult& r) { return r.admitted(); }) &&
           (quota.empty() || quota_reserved) && waiting_for.empty() &&
           std::none_of(quota.begin(), quota.end(),
                        [](const PodSetQuota& q) { return q.delayed == "Pending"; });
  }
};

}  // namespace tidesim::app
