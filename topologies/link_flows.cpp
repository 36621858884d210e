#include "tidesim/topologies/link_flows.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tidesim {

TopologyFlows::TopologyFlows(const Topology& topology, FluidSolver& solver)
    : topology_(&topology),
      solver_(&solver),
      resources_(static_cast<std::size_t>(topology.directed_link_count())) {}

ResourceId TopologyFlows::resource(int link) {
  if (link < 0 || link >= static_cast<int>(resources_.size())) {
    throw std::out_of_range("topology flows: no directed link " + std::to_string(link));
  }
  auto& r = resources_[static_cast<std::size_t>(link)];
  if (!r) {
    r = solver_->add_resource(topology_->directed_link_bandwidth(link));
  }
  return *r;
}

const std::vector<ResourceId>& TopologyFlows::best_ring_resources(std::span<const int> gpus) {
  for (const auto& [set, resources] : best_rings_) {
    if (std::equal(set.begin(), set.end(), gpus.begin(), gpus.end())) {
      return resources;
    }
  }
  auto& [set, resources] = best_rings_.emplace_back(std::vector<int>(gpus.begin(), gpus.end()),
                                                    std::vector<ResourceId>{});
  if (gpus.size() >= 2) {
    resources = ring_resources(topology_->best_ring(gpus));
  }
  return resources;
}

std::vector<ResourceId> TopologyFlows::ring_resources(std::span<const int> order) {
  std::vector<ResourceId> out;
  for (int l : topology_->ring_links(order)) {
    out.push_back(resource(l));
  }
  return out;
}

FlowId TopologyFlows::add_ring(std::span<const int> gpus, double max_rate) {
  return solver_->add_flow(best_ring_resources(gpus), max_rate);
}

FlowId TopologyFlows::add_transfer(int a, int b, double max_rate) {
  std::vector<ResourceId> path;
  for (int l : topology_->route(a, b)) {
    path.push_back(resource(l));
  }
  return solver_->add_flow(std::move(path), max_rate);
}

}  // namespace tidesim
