#include "tidesim/sim/model/fabric_network.hpp"

#include <algorithm>

namespace tidesim {

FabricNetwork::FabricNetwork(Fabric fabric, int nodes, FluidSolver& fluid)
    : fabric_(std::move(fabric)) {
  // Every node's NICs are one resource of this capacity (Cluster), never changed during a run.
  const double nic = node_fabric_bandwidth(fabric_);
  for (std::size_t t = 0; t < fabric_.tiers.size(); ++t) {
    const int per = fabric_.tiers[t].nodes;
    std::vector<ResourceId>& links = uplinks_.emplace_back();
    std::vector<char>& binding = binding_.emplace_back();
    for (int first = 0; first < nodes; first += per) {
      const int members = std::min(per, nodes - first);
      const double capacity = domain_uplink_bandwidth(fabric_, t, members);
      // Added even when it cannot bind, so that resource ids do not depend on it.
      links.push_back(fluid.add_resource(capacity));
      binding.push_back(capacity < members * nic ? 1 : 0);
    }
  }
}

std::vector<int> FabricNetwork::domains_of(std::size_t tier, const std::vector<int>& nodes) const {
  std::vector<int> out;
  out.reserve(nodes.size());
  for (const int n : nodes) {
    out.push_back(fabric_domain(fabric_, tier, n));
  }
  // A domain is a block of consecutive nodes: nodes in order give their domains in order.
  if (!std::is_sorted(out.begin(), out.end())) {
    std::sort(out.begin(), out.end());
  }
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void FabricNetwork::add_crossings(const std::vector<int>& nodes,
                                  std::vector<ResourceId>& path) const {
  for (std::size_t t = 0; t < uplinks_.size(); ++t) {
    const std::vector<int> spanned = domains_of(t, nodes);
    if (spanned.size() < 2) {
      continue;
    }
    for (const int d : spanned) {
      if (binding_[t][static_cast<std::size_t>(d)] != 0) {
        path.push_back(uplink(t, d));
      }
    }
  }
}

double FabricNetwork::latency(const std::vector<int>& nodes) const {
  if (nodes.size() < 2) {
    return 0.0;
  }
  double total = fabric_.latency;
  for (std::size_t t = 0; t < uplinks_.size(); ++t) {
    if (domains_of(t, nodes).size() > 1) {
      total += fabric_.tiers[t].latency;
    }
  }
  return total;
}

FabricSpan FabricNetwork::span(const std::vector<int>& nodes) const {
  FabricSpan out;
  out.nodes = static_cast<int>(nodes.size());
  for (std::size_t t = 0; t < uplinks_.size(); ++t) {
    const int per_domain = fabric_.tiers[t].nodes;
    out.domains.push_back(static_cast<int>(domains_of(t, nodes).size()));
    out.fewest.push_back((out.nodes + per_domain - 1) / per_domain);
  }
  return out;
}

}  // namespace tidesim
