#include "tidesim/policies/nominations.hpp"

#include <utility>

namespace tidesim::policies {

Nominations::Nominations(Simulation& sim, Scheduler& scheduler, const ClusterView& cluster,
                         BindTarget& target)
    : sim_(sim), scheduler_(scheduler), cluster_(cluster), target_(target) {}

std::optional<int> Nominations::node_of(const std::string& pod) const {
  const auto it = nominated_.find(pod);
  return it == nominated_.end() ? std::nullopt : std::optional<int>(it->second.node);
}

const ClusterView& Nominations::view_for(const PodSpec& pod) {
  bool any = false;
  for (auto it = nominated_.begin(); it != nominated_.end();) {
    if (!target_.pod_alive(*it->second.pod)) {
      it = nominated_.erase(it);  // a deleted preemptor keeps nothing
      continue;
    }
    any = any || (it->first != pod.name && it->second.pod->priority >= pod.priority);
    ++it;
  }
  if (!any) {
    return cluster_;
  }
  with_nominated_ = cluster_;
  for (const auto& [name, n] : nominated_) {
    if (name != pod.name && n.pod->priority >= pod.priority) {
      with_nominated_.nodes[static_cast<std::size_t>(n.node)].add_pod(n.pod, sim_.now());
    }
  }
  return with_nominated_;
}

void Nominations::try_preemption(const PodPtr& pod) {
  if (!on_) {
    return;
  }
  if (const auto it = nominated_.find(pod->name); it != nominated_.end()) {
    for (const auto& v : it->second.victims) {
      if (target_.pod_alive(*v)) {
        return;
      }
    }
  }
  PostFilterResult r = scheduler_.post_filter(*pod, cluster_, sim_.now());
  if (!r.nominated_node) {
    return;
  }
  Nomination& n = nominated_[pod->name];
  n.pod = pod;
  n.node = *r.nominated_node;
  n.victims = std::move(r.victims);
  target_.preempt(*pod, n.node, n.victims);
}

}  // namespace tidesim::policies
