#include "tidesim/policies/unschedulable_pods.hpp"

namespace tidesim::policies {

UnschedulablePods::Key UnschedulablePods::push(QueuedPod e, TimePoint now) {
  // The key is the largest yet (times do not go back, seq grows): inserted at the end.
  const Key k{now, e.seq};
  if (e.group >= 0) {
    std::set<Key>& group = groups_[e.group];
    group.emplace_hint(group.end(), k);
    ++grouped_;
  }
  pods_.emplace_hint(pods_.end(), k, std::move(e));
  return k;
}

QueuedPod UnschedulablePods::erase(Map::iterator it) {
  QueuedPod e = std::move(it->second);
  if (e.group >= 0) {
    const auto g = groups_.find(e.group);
    g->second.erase(it->first);
    if (g->second.empty()) {
      groups_.erase(g);
    }
    --grouped_;
    e.group = -1;
  }
  pods_.erase(it);
  return e;
}

}  // namespace tidesim::policies
