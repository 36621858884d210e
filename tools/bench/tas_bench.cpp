// Kueue's TAS placement (sim/admission/tas_snapshot.hpp, docs/topology-aware.md) on a fabric of
// 12,500 hosts: 25 blocks x 50 racks x 10 nodes of 8 GPUs, every node empty; one PodSet of 64
// pods of 8 GPUs (512 GPUs) asking for one block (required or preferred) or nothing
// (unconstrained). BM_TasSnapshot builds the domain tree; BM_TasPlace times one placement
// decision on a built snapshot (the snapshot is not changed between iterations);
// BM_TasDecision one decision as a run makes it (sim/model/topology_admission.hpp): the kept
// snapshot brought up to date for the 64 nodes whose usage changed since the last decision,
// then the placement. BM_DefaultK8sGang is the same gang through default-k8s on the same 12,500
// nodes: 64 scheduling cycles, each pod bound to its node (Arg 1: each pod pinned to one node
// by a required node affinity on `metadata.name`, as a run pins the pods of a TAS-admitted
// gang to their assigned hosts); the pods are unbound after each iteration.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "tidesim/policies/scheduler.hpp"
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

void BM_TasDecision(benchmark::State& state) {
  std::vector<TasNode> nodes = fabric();
  TasSnapshot s("t", kLevels, nodes, {});
  const std::vector<TasPodSet> podsets = {gang(static_cast<int>(state.range(0)))};
  bool taken = false;
  for (auto _ : state) {
    // The first 64 hosts are taken or freed again: their usage changed since the last decision.
    taken = !taken;
    for (std::size_t n = 0; n < 64; ++n) {
      nodes[n].allocatable[tidesim::kGpuResource] = taken ? 0 : 8;
      s.update_node(nodes[n]);
    }
    s.clear_usage();
    std::vector<PodSetResult> r = s.find_assignments(podsets, TasFeatureGates{});
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(state.range(0) == 0   ? "required"
                 : state.range(0) == 1 ? "preferred"
                                       : "unconstrained");
}
BENCHMARK(BM_TasDecision)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

void BM_DefaultK8sGang(benchmark::State& state) {
  tidesim::ClusterView view;
  for (const TasNode& n : fabric()) {
    tidesim::NodeInfo info;
    info.node.name = n.name;
    info.node.labels = n.labels;
    info.node.allocatable.cpu_milli = 96000;
    info.node.allocatable.gpus = 8;
    view.nodes.push_back(std::move(info));
  }
  auto scheduler = tidesim::policies::make_scheduler("default-k8s", 1);
  scheduler->set_record_reasons(false);  // as in a run (policies/scheduling_loop.cpp)
  const bool pinned = state.range(0) == 1;
  std::vector<std::shared_ptr<tidesim::PodSpec>> pods;
  for (int k = 0; k < 64; ++k) {
    auto pod = std::make_shared<tidesim::PodSpec>();
    pod->name = "gang-" + std::to_string(k);
    pod->requests.gpus = 8;
    if (pinned) {
      // Rack k of block 0, its first host: where a TAS assignment might have put the pod.
      tidesim::NodeSelectorTerm t;
      t.match_fields.push_back({"metadata.name",
                                "In",
                                {"b0-r" + std::to_string(k % 50) + "-n" + std::to_string(k / 50)}});
      pod->node_affinity.required.push_back(std::move(t));
    }
    pods.push_back(std::move(pod));
  }
  std::vector<int> bound(pods.size(), -1);
  for (auto _ : state) {
    for (std::size_t k = 0; k < pods.size(); ++k) {
      const auto r = scheduler->schedule_one(*pods[k], view, nullptr, tidesim::TimePoint{});
      bound[k] = r.node.value_or(-1);
      if (bound[k] >= 0) {
        view.nodes[static_cast<std::size_t>(bound[k])].add_pod(pods[k]);
      }
    }
    for (std::size_t k = 0; k < pods.size(); ++k) {
      if (bound[k] >= 0) {
        view.nodes[static_cast<std::size_t>(bound[k])].remove_pod(pods[k]->name);
      }
    }
  }
  state.SetLabel(pinned ? "pods pinned to their hosts" : "pods free");
}
BENCHMARK(BM_DefaultK8sGang)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
