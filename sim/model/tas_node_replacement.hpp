#pragma once
/// Kueue's TASFailedNodeReplacement as the gang failure path asks it (sim/model/gang_failures.hpp,
/// docs/failures.md): the admission layer (sim/model/admission_controller.hpp) answers for the
/// jobs Kueue's topology-aware scheduling admitted, with the one TasSnapshot::find_replacements
/// that `tidesim admit` and the ported Kueue cases run.
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/model/job_controller.hpp"

namespace tidesim {

class TasNodeReplacement {
 public:
  virtual ~TasNodeReplacement() = default;
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
};

}  // namespace tidesim
