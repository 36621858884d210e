#pragma once
/// Preemption in a scheduling loop: the nodes PostFilter (DefaultPreemption) nominated for pods
/// (nominatedNodeName), the view a pod is scheduled against while others are nominated
/// (RunFilterPluginsWithNominatedPods), and PodEligibleToPreemptOthers.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/policies/bind_target.hpp"
#include "tidesim/policies/queue.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/engine/simulation.hpp"

namespace tidesim::policies {

class Nominations {
 public:
  /// Everything given must outlive the nominations.
  Nominations(Simulation& sim, Scheduler& scheduler, const ClusterView& cluster,
              BindTarget& target);

  /// Turns preemption on (off: try_preemption() does nothing).
  void set_on(bool on) { on_ = on; }
  /// The node preemption nominated for the pod called `pod`; nullopt if none.
  std::optional<int> node_of(const std::string& pod) const;
  /// The pod called `pod` was bound: its nomination ends.
  void erase(const std::string& pod) { nominated_.erase(pod); }
  /// The view `pod` is scheduled against: the cluster's, or, while pods of at least its priority
  /// are nominated elsewhere, a copy with those pods added to their nominated nodes, so that the
  /// room a preemption made is kept for its preemptor. A deleted preemptor keeps nothing.
  const ClusterView& view_for(const PodSpec& pod);
  /// PostFilter for `pod` after it fit no node: when the profile's PostFilter names a node, the
  /// pod is nominated there and the target deletes the victims. Not while a victim of the pod's
  /// last nomination is still alive (PodEligibleToPreemptOthers).
  void try_preemption(const PodPtr& pod);

 private:
  struct Nomination {
    PodPtr pod;
    int node = -1;
    std::vector<std::shared_ptr<const PodSpec>> victims;
  };
  Simulation& sim_;
  Scheduler& scheduler_;
  const ClusterView& cluster_;
  BindTarget& target_;
  bool on_ = false;
  std::map<std::string, Nomination> nominated_;
  ClusterView with_nominated_;
};

}  // namespace tidesim::policies
