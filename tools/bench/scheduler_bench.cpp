// Scheduling cycles per second for default-k8s and load-aware on 100 and 1,000 nodes.
// Each node: 4 GPUs, 32 CPUs, 128 GiB, two bound pods; the pending pod asks 1 GPU, 4 CPUs, 16 GiB.
// The cluster is not changed between cycles (no binding), so every cycle does the same work;
// node sampling and the round-robin start are active as in kube-scheduler.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "tidesim/policies/scheduler.hpp"

namespace {

using namespace tidesim;

class StaticMetrics : public MetricsSource {
 public:
  std::map<std::string, NodeMetrics> metrics;
  MetricsAnswer query(const std::string& node, TimePoint) const override {
    MetricsAnswer a;
    const auto it = metrics.find(node);
    if (it != metrics.end()) {
      a.metrics = it->second;
    }
    return a;
  }
};

ClusterView make_cluster(int n, StaticMetrics& m) {
  ClusterView c;
  for (int i = 0; i < n; ++i) {
    NodeInfo info;
    info.node.name = "node-" + std::to_string(i);
    info.node.labels["kubernetes.io/hostname"] = info.node.name;
    info.node.labels["nvidia.com/gpu.present"] = "true";
    info.node.allocatable.cpu_milli = 32000;
    info.node.allocatable.memory_bytes = 128LL << 30;
    info.node.allocatable.gpus = 4;
    for (int k = 0; k < 2; ++k) {
      auto p = std::make_shared<PodSpec>();
      p->name = info.node.name + "-pod-" + std::to_string(k);
      p->labels["app"] = "train-" + std::to_string(i % 7);
      p->requests.cpu_milli = 2000 + 1000 * ((i + k) % 3);
      p->requests.memory_bytes = (8LL + 4 * ((i * 3 + k) % 5)) << 30;
      p->requests.gpus = 1;
      info.add_pod(p);
    }
    c.nodes.push_back(info);
    NodeMetrics nm;
    nm.gpu_memory_utilization = {0.1 + 0.01 * (i % 60), 0.2, 0.0, 0.0};
    nm.nvlink_competition_index = 0.125 * (i % 3);
    nm.storage_await_ms["nvme0n1"] = 2.0 + (i % 10);
    m.metrics[info.node.name] = nm;
  }
  return c;
}

void run(benchmark::State& state, const char* scheduler) {
  StaticMetrics metrics;
  const ClusterView c = make_cluster(static_cast<int>(state.range(0)), metrics);
  auto s = policies::make_scheduler(scheduler, 1);
  PodSpec pod;
  pod.name = "pending";
  pod.image = "pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime";
  pod.requests.cpu_milli = 4000;
  pod.requests.memory_bytes = 16LL << 30;
  pod.requests.gpus = 1;
  for (auto _ : state) {
    auto r = s->schedule_one(pod, c, &metrics, TimePoint{});
    benchmark::DoNotOptimize(r.node);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_DefaultK8s(benchmark::State& state) {
  run(state, "default-k8s");
}
void BM_LoadAware(benchmark::State& state) {
  run(state, "load-aware");
}

BENCHMARK(BM_DefaultK8s)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LoadAware)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace
