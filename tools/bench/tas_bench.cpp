// Kueue's TAS placement (sim/admission/tas_snapshot.hpp, docs/topology-aware.md) on a fabric of
// 12,500 hosts: 25 blocks x 50 racks x 10 nodes of 8 GPUs, every node empty; one PodSet of 64
// pods of 8 GPUs (512 GPUs) asking for one block (required or preferred) or nothing
// (unconstrained). BM_TasSnapshot builds the domain tree; BM_TasPlace times one placement
// decision on a built snapshot (the snapshot is not changed between iterations).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "tidesim/sim/admission/tas_snapshot.hpp"

namespace {

using namespace tidesim::tas;

const std::vector<std::string> kLevels = {"block", "rack", kHostnameLabel};

std::vector<TasNode> fabric() {
  std::vector<TasNode> nodes;
  for (int b = 0; b < 25; ++b) {
    for (int r = 0; r < 50; ++r) {
      for (int n = 0; n < 10; ++n) {
        TasNode x;
        const std::string rack = "b" + std::to_string(b) + "-r" + std::to_string(r);
        x.name = rack + "-n" + std::to_string(n);
        x.labels = {{"block", "b" + std::to_string(b)}, {"rack", rack}, {kHostnameLabel, x.name}};
        x.allocatable = {{"cpu", 96000}, {"nvidia.com/gpu", 8}, {"pods", 110}};
        nodes.push_back(x);
      }
    }
  }
  return nodes;
}

TasPodSet gang(int mode) {
  TasPodSet ps;
  ps.name = "main";
  ps.count = 64;
  ps.requests = {{"nvidia.com/gpu", 8}};
  ps.topology = TopologyRequest{};
  if (mode == 0) {
    ps.topology->required = "block";
  } else if (mode == 1) {
    ps.topology->preferred = "block";
  } else {
    ps.topology->unconstrained = true;
  }
  return ps;
}

void BM_TasSnapshot(benchmark::State& state) {
  const std::vector<TasNode> nodes = fabric();
  for (auto _ : state) {
    TasSnapshot s("t", kLevels, nodes, {});
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_TasSnapshot)->Unit(benchmark::kMillisecond);

void BM_TasPlace(benchmark::State& state) {
  TasSnapshot s("t", kLevels, fabric(), {});
  const std::vector<TasPodSet> podsets = {gang(static_cast<int>(state.range(0)))};
  for (auto _ : state) {
    std::vector<PodSetResult> r = s.find_assignments(podsets, TasFeatureGates{});
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(state.range(0) == 0   ? "required"
                 : state.range(0) == 1 ? "preferred"
                                       : "unconstrained");
}
BENCHMARK(BM_TasPlace)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace
