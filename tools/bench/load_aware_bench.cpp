// LoadAwareFilter's verdict over 4,000 nodes for one pod (a pytorch image with an
// ai.gpu-reject-threshold annotation): the pod's terms (threshold, NVLink need) computed once per
// cycle, as the plugin does, against computing them again for every node.
#include <benchmark/benchmark.h>

#include <vector>

#include "tidesim/policies/plugins/load_aware.hpp"

namespace {

using namespace tidesim;
using namespace tidesim::policies;

PodSpec bench_pod() {
  PodSpec pod;
  pod.image = "pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime";
  pod.annotations["ai.gpu-reject-threshold"] = "0.90";
  pod.requests.gpus = 1;
  return pod;
}

std::vector<LoadVector> bench_loads(int n) {
  std::vector<LoadVector> loads;
  for (int i = 0; i < n; ++i) {
    loads.push_back(LoadVector{0.05 * (i % 19), 0.03 * (i % 11), 0.1 * (i % 7)});
  }
  return loads;
}

void BM_FilterTermsPerCycle(benchmark::State& state) {
  const LoadAwareArgs args;
  const PodSpec pod = bench_pod();
  const auto loads = bench_loads(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const LoadAwarePodTerms terms = load_aware_pod_terms(pod, args);
    int rejected = 0;
    for (const LoadVector& l : loads) {
      rejected += load_aware_filter_reason(l, terms, args).has_value() ? 1 : 0;
    }
    benchmark::DoNotOptimize(rejected);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_FilterTermsPerNode(benchmark::State& state) {
  const LoadAwareArgs args;
  const PodSpec pod = bench_pod();
  const auto loads = bench_loads(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    int rejected = 0;
    for (const LoadVector& l : loads) {
      rejected += load_aware_filter_reason(l, pod, args).has_value() ? 1 : 0;
    }
    benchmark::DoNotOptimize(rejected);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

}  // namespace

BENCHMARK(BM_FilterTermsPerCycle)->Arg(4000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FilterTermsPerNode)->Arg(4000)->Unit(benchmark::kMicrosecond);
