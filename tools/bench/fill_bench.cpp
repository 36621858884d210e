// The FGD fill experiment (sim/experiments/fill_experiment.hpp) on openb_pod_list_default: one run
// per policy (seed 42, go-math-rand, tune 1.3) from ../shared/data (TIDESIM_SHARED_DATA env var
// overrides); skipped when absent. Design target (issue 13): one FGD run <= 2 s and 300 MB; the
// 60-run sweep (tools/macro-bench.sh scenarios/fgd-openb-default.yaml) <= 60 s on 2 cores.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tidesim/sim/experiments/fill_experiment.hpp"

namespace tidesim {
namespace {

namespace gs = policies::gpushare;

std::string data_file(const char* name) {
  const char* env = std::getenv("TIDESIM_SHARED_DATA");
  const std::string root = env != nullptr ? env : TIDESIM_BENCH_SHARED_DATA_DIR;
  return root + "/traces/" + name;
}

void fill(benchmark::State& state, gs::Policy policy) {
  const std::string nodes = data_file("openb_node_list_gpu_node.csv");
  const std::string pods = data_file("openb_pod_list_default.csv");
  if (!std::filesystem::exists(nodes) || !std::filesystem::exists(pods)) {
    state.SkipWithError(("shared data absent: " + pods).c_str());
    return;
  }
  FillInput in;
  in.nodes = workloads::read_openb_nodes(nodes);
  in.pods = workloads::read_trace(pods).records;
  FillOptions o;
  o.randomness = FillRandomness::kGoMathRand;
  std::int64_t computed = 0;
  std::int64_t reused = 0;
  std::int64_t arrivals = 0;
  for (auto _ : state) {
    const FillRun r = run_fill(in, policy, 42, o);
    computed = r.verdicts_computed;
    reused = r.verdicts_reused;
    arrivals = r.pods;
    benchmark::DoNotOptimize(r.curve.data());
  }
  state.counters["pods"] = static_cast<double>(arrivals);
  state.counters["verdicts_computed"] = static_cast<double>(computed);
  state.counters["verdicts_reused"] = static_cast<double>(reused);
}

void BM_FillFgd(benchmark::State& s) {
  fill(s, gs::Policy::kFgd);
}
BENCHMARK(BM_FillFgd)->Unit(benchmark::kMillisecond);
void BM_FillBestFit(benchmark::State& s) {
  fill(s, gs::Policy::kBestFit);
}
BENCHMARK(BM_FillBestFit)->Unit(benchmark::kMillisecond);
void BM_FillRandom(benchmark::State& s) {
  fill(s, gs::Policy::kRandom);
}
BENCHMARK(BM_FillRandom)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tidesim
