#include "sim/api/cluster_view.hpp"

#include <algorithm>

namespace tidesim {

Resources non_zero_requests(const PodSpec& pod) {
  return pod_requests(pod, RequestKind::kNonZero);
}

bool has_pod_affinity_terms(const PodSpec& p) {
  return !p.pod_affinity.required.empty() || !p.pod_affinity.preferred.empty() ||
         !p.pod_anti_affinity.required.empty() || !p.pod_anti_affinity.preferred.empty();
}

namespace {

void erase_pod(std::vector<std::shared_ptr<const PodSpec>>& pods, const PodSpec* pod) {
  const auto it =
      std::find_if(pods.begin(), pods.end(), [&](const auto& p) { return p.get() == pod; });
  if (it != pods.end()) {
    pods.erase(it);
  }
}

}  // namespace

void NodeInfo::add_pod(std::shared_ptr<const PodSpec> pod, TimePoint when) {
  requested += pod->requests;
  non_zero_requested += non_zero_requests(*pod);
  if (has_pod_affinity_terms(*pod)) {
    pods_with_affinity.push_back(pod);
  }
  if (!pod->pod_anti_affinity.required.empty()) {
    pods_with_required_anti_affinity.push_back(pod);
  }
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
  erase_pod(pods_with_affinity, it->get());
  erase_pod(pods_with_required_anti_affinity, it->get());
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
