#include "topologies/link_flows.hpp"

#include <stdexcept>
#include <string>

namespace tidesim {

TopologyFlows::TopologyFlows(const Topology& topology, FluidSolver& solver)
    : topology_(&topology), solver_(&solver) {
  for (int l = 0; l < topology.directed_link_count(); ++l) {
    resources_.push_back(solver.add_resource(topology.directed_link_bandwidth(l)));
  }
}

ResourceId TopologyFlows::resource(int link) const {
  if (link < 0 || link >= static_cast<int>(resources_.size())) {
    throw std::out_of_range("topology flows: no directed link " + std::to_string(link));
  }
  return resources_[static_cast<std::size_t>(link)];
}

std::vector<ResourceId> TopologyFlows::ring_resources(std::span<const int> order) const {
  std::vector<ResourceId> out;
  for (int l : topology_->ring_links(order)) {
    out.push_back(resource(l));
  }
  return out;
}

FlowId TopologyFlows::add_ring(std::span<const int> gpus, double max_rate) {
  const auto order = topology_->best_ring(gpus);
  return solver_->add_flow(ring_resources(order), max_rate);
}

FlowId TopologyFlows::add_transfer(int a, int b, double max_rate) {
  std::vector<ResourceId> path;
  for (int l : topology_->route(a, b)) {
    path.push_back(resource(l));
  }
  return solver_->add_flow(std::move(path), max_rate);
}

}  // namespace tidesim
