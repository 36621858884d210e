// Whole runs: the seed benchmark (100 jobs on 8 x 4 A10), one policy and seed per iteration.
#include <benchmark/benchmark.h>

#include "tools/lib/result.hpp"
#include "sim/run.hpp"

namespace tidesim::app {
namespace {

void BM_SeedBenchmarkRun(benchmark::State& state) {
  const Scenario s =
      load_scenario(std::string(TIDESIM_BENCH_SOURCE_DIR) + "/scenarios/seed-benchmark.yaml");
  const PolicyConfig& policy = s.policies.at(static_cast<std::size_t>(state.range(0)));
  const Workload w = make_jobs(s, 1);
  std::uint64_t events = 0;
  for (auto _ : state) {
    RunSignals signals;
    Recorder recorder(policy.name, 1, RecorderOptions{.record_series = false, .collectors = {}});
    recorder.attach(signals);
    const RunSummary summary = run_policy(s, w, policy, 1, signals);
    benchmark::DoNotOptimize(recorder.finish(summary.end));
    events += summary.events;
  }
  state.SetLabel(policy.name);
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SeedBenchmarkRun)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tidesim::app
