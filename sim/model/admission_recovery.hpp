#pragma once
/// What the gang failure path (sim/model/gang_failures.hpp, docs/failures.md) asks the admission
/// layer (sim/model/admission_controller.hpp) when a gang loses nodes: Kueue's
/// TASFailedNodeReplacement for the jobs Kueue's topology-aware scheduling admitted (the one
/// TasSnapshot::find_replacements that `tidesim admit` and the ported Kueue cases run), and the
/// placement of a restarted Volcano partition by the job-level policy that placed it first.
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/model/job_controller.hpp"

namespace tidesim {

class AdmissionRecovery {
 public:
  virtual ~AdmissionRecovery() = default;
  /// Whether job `j` is admitted with a topologyAssignment.
  virtual bool admitted_by_tas(int j) const = 0;
  /// Node `node` of TAS-admitted job `j` failed: true when a replacement was found (the job's
  /// assignment now holds it, and the new pods of the job's pods on `node` are restricted to
  /// their new domain when they are released, as the first placement's are), false when none
  /// fits (the assignment is unchanged).
  virtual bool replace_node(int j, const std::string& node) = 0;
  /// Evicts job `j` (Kueue's eviction after a failed replacement, TASFailedNodeReplacementFailFast,
  /// or after a second node failure): it is no longer admitted, its assignment is dropped, its
  /// attempt is stopped (JobController::interrupt with `cause` and `restore`), and its new pods
  /// wait to be admitted and placed afresh.
  virtual void evict(int j, InterruptCause cause, Duration restore) = 0;
  /// The pods `pods` (indices in its pods) of admitted job `j` are about to be replaced with no
  /// node named (Volcano's RestartPartition): true when the job-level policy places the held
  /// pods of its admitted jobs (JobPolicy::places_held_pods; the `volcano` policy places them as
  /// a sub-job within the partition's networkTopology): their nodes are forgotten and the new
  /// pods are held until a decision names theirs. False: nothing changes (the scheduler places
  /// them).
  virtual bool replan_pods(int j, const std::vector<int>& pods) = 0;
};

}  // namespace tidesim
