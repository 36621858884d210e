// Max-min re-solve after one flow change on a 1,000-node x 8-GPU cluster with 4,000 active flows
// (issue 3's design target: well under 100 us, i.e. a local re-solve, not a global one).
// Each node is a DGX-1 (dgx1-v100 preset: its directed NVLink/PCIe/SMP links are resources) with
// an NVMe and an uplink (in and out). Per node, 4 flows: two cross-socket 4-GPU ring all-reduces
// ({0,1,6,7} and {2,3,4,5}: both cross the node's SMP link, so they share it), one data-loader
// read from the node's NVMe, and one transfer to the paired node (2j <-> 2j+1) over both uplinks.
// One iteration removes one flow, re-solves, adds it back and re-solves: two re-solves.
// Variants: Local (components of 1-2 flows), Rack32 (every 32 nodes' transfers also cross one
// shared rack link: 32-flow components), SharedNfs (every data loader reads one shared NFS
// device: a 1,000-flow component, the global worst case; loader changes only). DistinctBounds:
// the same with every loader capped at a different demand (one filling round per loader).
#include <benchmark/benchmark.h>

#include <vector>

#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/topologies/link_flows.hpp"
#include "tidesim/topologies/presets.hpp"

namespace {

using tidesim::FlowId;
using tidesim::FluidSolver;
using tidesim::ResourceId;

constexpr int kNodes = 1000;

struct Cluster {
  tidesim::Topology node = tidesim::preset("dgx1-v100");
  FluidSolver solver;
  std::vector<tidesim::TopologyFlows> links;
  std::vector<ResourceId> nvme;
  std::vector<ResourceId> up_out;
  std::vector<ResourceId> up_in;
  std::vector<std::vector<ResourceId>> flow_paths;  // path of every flow, by slot
  std::vector<FlowId> flows;
  std::vector<double> bounds;
  std::vector<int> loader_slots;

  Cluster(bool shared_nfs, int rack_size, bool distinct_bounds = false) {
    const ResourceId nfs = solver.add_resource(10e9);
    std::vector<ResourceId> racks;
    for (int r = 0; rack_size > 0 && r < (kNodes + rack_size - 1) / rack_size; ++r) {
      racks.push_back(solver.add_resource(100e9));
    }
    for (int n = 0; n < kNodes; ++n) {
      links.emplace_back(node, solver);
      nvme.push_back(solver.add_resource(7e9));
      up_out.push_back(solver.add_resource(12.5e9));
      up_in.push_back(solver.add_resource(12.5e9));
    }
    const std::vector<int> left{0, 1, 6, 7};
    const std::vector<int> right{2, 3, 4, 5};
    const auto ring_left = node.best_ring(left);
    const auto ring_right = node.best_ring(right);
    for (int n = 0; n < kNodes; ++n) {
      auto& l = links[static_cast<std::size_t>(n)];
      flow_paths.push_back(l.ring_resources(ring_left));
      flow_paths.push_back(l.ring_resources(ring_right));
      loader_slots.push_back(static_cast<int>(flow_paths.size()));
      flow_paths.push_back({shared_nfs ? nfs : nvme[static_cast<std::size_t>(n)]});
      const int peer = n % 2 == 0 ? n + 1 : n - 1;
      std::vector<ResourceId> transfer{up_out[static_cast<std::size_t>(n)],
                                       up_in[static_cast<std::size_t>(peer)]};
      if (!racks.empty()) {
        transfer.push_back(racks[static_cast<std::size_t>(n / rack_size)]);
      }
      flow_paths.push_back(transfer);
    }
    for (std::size_t i = 0; i < flow_paths.size(); ++i) {
      bounds.push_back(FluidSolver::kUnbounded);
    }
    if (distinct_bounds) {
      // Loader n asks 20 MB/s x (n + 1) / 1000: the demands sum to about the NFS capacity, so
      // progressive filling needs about one round per loader (the worst case for rounds).
      for (int n = 0; n < kNodes; ++n) {
        bounds[static_cast<std::size_t>(loader_slots[static_cast<std::size_t>(n)])] =
            20e6 * (n + 1) / kNodes;
      }
    }
    for (std::size_t i = 0; i < flow_paths.size(); ++i) {
      flows.push_back(solver.add_flow(flow_paths[i], bounds[i]));
    }
    solver.update();
  }

  // Removes and re-adds the flow in `slot`, re-solving after each change.
  void churn(std::size_t slot) {
    solver.remove_flow(flows[slot]);
    benchmark::DoNotOptimize(solver.update());
    flows[slot] = solver.add_flow(flow_paths[slot], bounds[slot]);
    benchmark::DoNotOptimize(solver.update());
  }
};

void churn_all(benchmark::State& state, Cluster& c) {
  std::size_t slot = 0;
  for (auto _ : state) {
    c.churn(slot);
    slot = (slot + 997) % c.flows.size();  // walk every kind of flow across the cluster
  }
  state.counters["flows"] = static_cast<double>(c.solver.flow_count());
  state.SetItemsProcessed(state.iterations() * 2);  // re-solves
}

// Churns the data loaders' flows in turn; reports the flows of the component the last re-solve
// touched as resolved_flows.
void churn_loaders(benchmark::State& state, Cluster& c) {
  std::size_t i = 0;
  for (auto _ : state) {
    c.churn(static_cast<std::size_t>(c.loader_slots[i]));
    i = (i + 1) % c.loader_slots.size();
  }
  state.counters["flows"] = static_cast<double>(c.solver.flow_count());
  state.counters["resolved_flows"] = c.solver.last_component_flows();
  state.SetItemsProcessed(state.iterations() * 2);
}

void BM_FluidLocalChange(benchmark::State& state) {
  Cluster c(false, 0);
  churn_all(state, c);
}
BENCHMARK(BM_FluidLocalChange)->Unit(benchmark::kMicrosecond);

void BM_FluidRack32Change(benchmark::State& state) {
  Cluster c(false, 32);
  churn_all(state, c);
}
BENCHMARK(BM_FluidRack32Change)->Unit(benchmark::kMicrosecond);

void BM_FluidSharedNfsLoaderChange(benchmark::State& state) {
  Cluster c(true, 0);
  churn_loaders(state, c);
}
BENCHMARK(BM_FluidSharedNfsLoaderChange)->Unit(benchmark::kMicrosecond);

void BM_FluidSharedNfsDistinctBounds(benchmark::State& state) {
  Cluster c(true, 0, true);
  churn_loaders(state, c);
}
BENCHMARK(BM_FluidSharedNfsDistinctBounds)->Unit(benchmark::kMicrosecond);

}  // namespace

namespace {

// Topology queries a placement policy calls per node and pod: the best free k-GPU set of a DGX-1.
void BM_BestFreeSetDgx1(benchmark::State& state) {
  const tidesim::Topology t = tidesim::preset("dgx1-v100");
  const std::vector<bool> free(8, true);
  const int k = static_cast<int>(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(t.best_free_set(k, free));
  }
}
BENCHMARK(BM_BestFreeSetDgx1)->Arg(2)->Arg(4)->Arg(8)->Unit(benchmark::kMicrosecond);

void BM_PresetBuild(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(tidesim::preset("dgx1-v100"));
  }
}
BENCHMARK(BM_PresetBuild)->Unit(benchmark::kMicrosecond);

}  // namespace
