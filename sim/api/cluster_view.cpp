#include "sim/api/cluster_view.hpp"

#include <algorithm>

namespace tidesim {

Resources non_zero_requests(const PodSpec& pod) {
  return pod_requests(pod, RequestKind::kNonZero);
}

void NodeInfo::add_pod(std::shared_ptr<const PodSpec> pod, TimePoint when) {
  requested += pod->requests;
  non_zero_requested += non_zero_requests(*pod);
  pods.push_back(std::move(pod));
  bound_at.push_back(when);
}

bool NodeInfo::remove_pod(const std::string& pod_name) {
  const auto it =
      std::find_if(pods.begin(), pods.end(), [&](const auto& p) { return p->name == pod_name; });
  if (it == pods.end()) {
    return false;
  }
  requested -= (*it)->requests;
  non_zero_requested -= non_zero_requests(**it);
  bound_at.erase(bound_at.begin() + (it - pods.begin()));
  pods.erase(it);
  return true;
}

int ClusterView::index_of(const std::string& name) const {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].node.name == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace tidesim
