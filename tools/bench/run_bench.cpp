// Whole runs: the seed benchmark (100 jobs on 8 x 4 A10), one policy and seed per iteration.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {
namespace {

// One run of `policy` on `w` with seed 1, recorded as `tidesim run` records it (no series); its
// events.
std::uint64_t run_once(const Scenario& s, const Workload& w, const PolicyConfig& policy) {
  RunSignals signals;
  Recorder recorder(policy.name, 1, RecorderOptions{.record_series = false, .collectors = {}});
  recorder.attach(signals);
  const RunSummary summary = run_policy(s, w, policy, 1, signals);
  benchmark::DoNotOptimize(recorder.finish(summary.end));
  return summary.events;
}

// Reports `events` as a rate over the timed iterations.
void count_events(benchmark::State& state, std::uint64_t events) {
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}

void BM_SeedBenchmarkRun(benchmark::State& state) {
  const Scenario s =
      load_scenario(std::string(TIDESIM_BENCH_SOURCE_DIR) + "/scenarios/seed-benchmark.yaml");
  const PolicyConfig& policy = s.policies.at(static_cast<std::size_t>(state.range(0)));
  const Workload w = make_jobs(s, 1);
  std::uint64_t events = 0;
  for (auto _ : state) {
    events += run_once(s, w, policy);
  }
  state.SetLabel(policy.name);
  count_events(state, events);
}
BENCHMARK(BM_SeedBenchmarkRun)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The Pollux artifact's workload-6 (160 jobs on 16 x 4 T4, scenarios/pollux-workload-6.yaml) under
// one job-level policy per iteration (first argument: 0 fifo, 1 srtf, 2 tiresias); with the
// second argument 1 each iteration also reads the workload and the applications' measurements
// (../shared/data), as `tidesim run` does once per seed (0: read once, outside the timing). The
// artifact's own simulator takes 16.5 s for its Tiresias (measured on a 2-core machine);
// docs/pollux.md, "Speed", reports the ratio. Skipped when the shared data is absent.
void BM_PolluxWorkload6(benchmark::State& state) {
  const std::string path =
      std::string(TIDESIM_BENCH_SOURCE_DIR) + "/scenarios/pollux-workload-6.yaml";
  const std::string data =
      std::string(TIDESIM_BENCH_SOURCE_DIR) + "/../shared/data/traces/pollux_workload-6.csv";
  if (!std::filesystem::exists(data)) {
    state.SkipWithError(("shared data absent: " + data).c_str());
    return;
  }
  const Scenario s = load_scenario(path);
  const PolicyConfig& policy = s.policies.at(static_cast<std::size_t>(state.range(0)));
  const bool read_each_time = state.range(1) != 0;
  const Workload once = make_jobs(s, 1);
  std::uint64_t events = 0;
  for (auto _ : state) {
    const Workload read = read_each_time ? make_jobs(s, 1) : Workload{};
    const Workload& w = read_each_time ? read : once;
    events += run_once(s, w, policy);
  }
  state.SetLabel(policy.name + (read_each_time ? ", reading the data" : ""));
  count_events(state, events);
}
BENCHMARK(BM_PolluxWorkload6)->ArgsProduct({{0, 1, 2}, {0, 1}})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tidesim::app
