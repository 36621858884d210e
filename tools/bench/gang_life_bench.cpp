// Llama 3 405B under failures (scenarios/llama3-405b-failures.yaml, docs/failures.md "Gangs"):
// the 54-day life of the 16,384-GPU gang over 10 seeds, alone (the superposed process and the
// gang's recovery) and as whole runs of the scenario (scheduling the 2,048 pods, the fabric,
// hourly samples, the recorder), 10 seeds per iteration, and one seed's whole run.
#include <benchmark/benchmark.h>

#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/model/gang_life.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {
namespace {

const std::string kScenario =
    std::string(TIDESIM_BENCH_SOURCE_DIR) + "/scenarios/llama3-405b-failures.yaml";

void BM_Llama3GangLifeTenSeeds(benchmark::State& state) {
  const Scenario s = load_scenario(kScenario);
  const GangFailuresConfig& c = s.faults.gang;
  GangShape shape;
  shape.gpus = 16'384;
  shape.nodes = 2'048;
  shape.cluster_nodes = 2'080;
  shape.spares = c.spares;
  shape.checkpoint_bytes = 405.9e9 * 14;
  int interruptions = 0;
  for (auto _ : state) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      RandomStream rng(seed, "faults/gang/llama3-405b/0");
      const GangLife l =
          simulate_gang_life(c, shape, 54 * 86'400.0, random_gang_draws(c, shape, rng));
      interruptions += l.unexpected();
    }
  }
  benchmark::DoNotOptimize(interruptions);
}
BENCHMARK(BM_Llama3GangLifeTenSeeds)->Unit(benchmark::kMillisecond);

// One whole run of the scenario for `seed`, recorded as `tidesim run` records it.
void run_seed(const Scenario& s, std::uint64_t seed) {
  const PolicyConfig& policy = s.policies.front();
  const Workload w = make_jobs(s, seed);
  RunSignals signals;
  Recorder recorder(policy.name, seed, RecorderOptions{.record_series = false, .collectors = {}});
  recorder.attach(signals);
  const RunSummary summary = run_policy(s, w, policy, seed, signals);
  benchmark::DoNotOptimize(recorder.finish(summary.end));
}

void BM_Llama3FailuresScenarioTenSeeds(benchmark::State& state) {
  const Scenario s = load_scenario(kScenario);
  for (auto _ : state) {
    for (const std::uint64_t seed : s.seeds) {
      run_seed(s, seed);
    }
  }
}
BENCHMARK(BM_Llama3FailuresScenarioTenSeeds)->Unit(benchmark::kSecond)->Iterations(1);

// Its first seed alone: about 450 interruptions, each stopping and restarting the 2,048 pods'
// containers, rings and flows in the cluster model.
void BM_Llama3FailuresScenarioOneSeed(benchmark::State& state) {
  const Scenario s = load_scenario(kScenario);
  for (auto _ : state) {
    run_seed(s, s.seeds.front());
  }
}
BENCHMARK(BM_Llama3FailuresScenarioOneSeed)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace tidesim::app
