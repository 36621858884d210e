// The admission layer's answers to the gang failure path (sim/model/admission_controller.hpp,
// LayerRecovery; docs/topology-aware.md "In runs", docs/failures.md).
#include <string>
#include <vector>

#include "tidesim/sim/model/admission_controller.hpp"

namespace tidesim {

bool LayerRecovery::admitted_by_tas(int j) const {
  return a_.topology_ && a_.entries_[static_cast<std::size_t>(j)].job.admitted &&
         a_.topology_->admitted(j);
}

bool LayerRecovery::replace_node(int j, const std::string& node) {
  return admitted_by_tas(j) && a_.topology_->replace_node(j, node);
}

void LayerRecovery::evict(int j, InterruptCause cause, Duration restore) {
  // Kueue evicts the Workload: its quota is released, its pods are deleted and it is queued
  // again, to be admitted and placed afresh (the new pods are held until then).
  Admission::Entry& e = a_.entries_[static_cast<std::size_t>(j)];
  if (e.job.admitted) {
    a_.quota_event(j, false);
    e.job.admitted = false;
  }
  if (a_.topology_) {
    a_.topology_->release(j);
  }
  a_.controller_.interrupt(j, cause, restore);
}

bool LayerRecovery::replan_pods(int j, const std::vector<int>& pods) {
  Admission::Entry& e = a_.entries_[static_cast<std::size_t>(j)];
  if (!a_.policy_ || !a_.policy_->places_held_pods() || !e.job.admitted || e.pod_nodes.empty()) {
    return false;
  }
  for (const int k : pods) {
    if (k >= 0 && static_cast<std::size_t>(k) < e.pod_nodes.size()) {
      e.pod_nodes[static_cast<std::size_t>(k)].clear();
    }
  }
  return true;
}

}  // namespace tidesim
