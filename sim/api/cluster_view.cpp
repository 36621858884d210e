#include "tidesim/sim/api/cluster_view.hpp"

#include <algorithm>
#include <atomic>

namespace tidesim {

Resources non_zero_requests(const PodSpec& pod) {
  return pod_requests(pod, RequestKind::kNonZero);
}

bool has_pod_affinity_terms(const PodSpec& p) {
  return !p.pod_affinity.required.empty() || !p.pod_affinity.preferred.empty() ||
         !p.pod_anti_affinity.required.empty() || !p.pod_anti_affinity.preferred.empty();
}

namespace {

std::atomic<std::uint64_t> g_affinity_generation{0};

}  // namespace

std::uint64_t affinity_generation() {
  return g_affinity_generation.load(std::memory_order_relaxed);
}

void AffinityPodList::touch(bool changed) {
  if (changed) {
    g_affinity_generation.fetch_add(1, std::memory_order_relaxed);
  }
}

void AffinityPodList::add(std::shared_ptr<const PodSpec> pod) {
  pods_.push_back(std::move(pod));
  touch(true);
}

void AffinityPodList::remove(const PodSpec* pod) {
  const auto it =
      std::find_if(pods_.begin(), pods_.end(), [&](const auto& p) { return p.get() == pod; });
  if (it != pods_.end()) {
    pods_.erase(it);
    touch(true);
  }
}

void NodeInfo::add_pod(std::shared_ptr<const PodSpec> pod, TimePoint when) {
  requested += pod->requests;
  non_zero_requested += non_zero_requests(*pod);
  if (has_pod_affinity_terms(*pod)) {
    pods_with_affinity.add(pod);
  }
  if (!pod->pod_anti_affinity.required.empty()) {
    pods_with_required_anti_affinity.add(pod);
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
  pods_with_affinity.remove(it->get());
  pods_with_required_anti_affinity.remove(it->get());
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

const ClusterView::AffinityIndex& ClusterView::affinity_index() const {
  AffinityIndex& x = affinity_index_;
  const std::uint64_t generation = affinity_generation();
  if (x.built && x.generation == generation && x.data == nodes.data() && x.size == nodes.size()) {
    return x;
  }
  x.with_affinity.clear();
  x.with_required_anti_affinity.clear();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].pods_with_affinity.empty()) {
      x.with_affinity.push_back(static_cast<int>(i));
    }
    if (!nodes[i].pods_with_required_anti_affinity.empty()) {
      x.with_required_anti_affinity.push_back(static_cast<int>(i));
    }
  }
  x.built = true;
  x.generation = generation;
  x.data = nodes.data();
  x.size = nodes.size();
  return x;
}

const std::vector<int>& ClusterView::nodes_with_affinity() const {
  return affinity_index().with_affinity;
}

const std::vector<int>& ClusterView::nodes_with_required_anti_affinity() const {
  return affinity_index().with_required_anti_affinity;
}

}  // namespace tidesim
