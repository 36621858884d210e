// The per-sample collectors (cluster balance, LSCS, NVLink variance) on a 1,523-node sample
// (openb's cluster size, 8 cards each), with revisions where only a few nodes change between
// samples (the Observer's case) and without revisions (every node recomputed).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "tidesim/sim/metrics/cluster_balance.hpp"
#include "tidesim/sim/metrics/lscs.hpp"
#include "tidesim/sim/metrics/nvlink_variance.hpp"

namespace {

using tidesim::ClusterSample;
using tidesim::NodeState;

ClusterSample make_sample(int nodes, bool revisions) {
  ClusterSample s;
  for (int n = 0; n < nodes; ++n) {
    NodeState node;
    node.name = "node-" + std::to_string(n);
    node.gpu_utilization.assign(8, 0.25 * (n % 4));
    node.gpu_memory_used.assign(8, std::int64_t{1} << (20 + n % 10));
    node.gpu_memory_capacity = std::int64_t{16} << 30;
    node.nvlink_utilization.assign(8, 0.1 * (n % 3));
    node.gpus_allocatable = 8;
    node.gpus_allocated = n % 9;
    s.nodes.push_back(node);
  }
  if (revisions) {
    s.node_revisions.assign(static_cast<std::size_t>(nodes), 0);
  }
  return s;
}

// One sample per iteration, an hour apart; `changed` nodes change between samples.
void BM_SampleCollectors(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int changed = static_cast<int>(state.range(1));
  const bool revisions = state.range(2) != 0;
  ClusterSample s = make_sample(nodes, revisions);
  tidesim::metrics::ClusterBalanceCollector balance;
  tidesim::metrics::LscsCollector lscs;
  tidesim::metrics::NvlinkVarianceCollector nvlink;
  std::int64_t k = 0;
  for (auto _ : state) {
    s.at += std::chrono::hours(1);
    for (int c = 0; c < changed; ++c) {
      const auto n = static_cast<std::size_t>((k * 7919 + c) % nodes);
      s.nodes[n].gpu_utilization[0] = 0.5 * static_cast<double>(k % 2);
      if (revisions) {
        ++s.node_revisions[n];
      }
    }
    ++k;
    balance.on_sample(s);
    lscs.on_sample(s);
    nvlink.on_sample(s);
  }
  state.SetItemsProcessed(state.iterations() * nodes);  // node-samples
}
BENCHMARK(BM_SampleCollectors)
    ->ArgNames({"nodes", "changed", "revisions"})
    ->Args({1523, 10, 1})
    ->Args({1523, 10, 0})
    ->Args({1523, 1523, 1});

}  // namespace
