// Gavel's allocation policies (sim/admission/gavel_*.hpp, docs/gavel.md) on a cluster of 36 + 36
// + 36 GPUs of three types and N single- and multi-GPU jobs whose throughputs are drawn (not
// measured): the time of one allocation, the unit the round mechanism recomputes; and one solve
// of Shockwave's plan.
#include <benchmark/benchmark.h>

#include <cmath>
#include <optional>
#include <vector>

#include "tidesim/sim/admission/gavel_allox.hpp"
#include "tidesim/sim/admission/gavel_ftf.hpp"
#include "tidesim/sim/admission/gavel_lp_policies.hpp"
#include "tidesim/sim/admission/gavel_water_filling.hpp"
#include "tidesim/sim/admission/shockwave_plan.hpp"
#include "tidesim/sim/engine/random.hpp"

namespace {

using namespace tidesim::gavel;

AllocationProblem problem(int jobs, bool single_gpu) {
  tidesim::RandomStream rng(1, "gavel-bench");
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100", "p100", "k80"}, .gpus = {36, 36, 36}, .prices = {}};
  for (int i = 0; i < jobs; ++i) {
    const double v100 = rng.uniform(1.0, 50.0);
    const int sf = single_gpu ? 1 : (rng.uniform01() < 0.7 ? 1 : (rng.uniform01() < 0.5 ? 2 : 4));
    p.jobs.push_back(
        {.id = i,
         .throughput = {v100, v100 * rng.uniform(0.3, 0.8), v100 * rng.uniform(0.1, 0.4)},
         .scale_factor = sf,
         .time_since_start_s = rng.uniform(0.0, 3600.0),
         .steps_remaining = v100 * rng.uniform(1800.0, 36000.0)});
  }
  return p;
}

void BM_MaxMinFairnessPerf(benchmark::State& state) {
  const AllocationProblem p = problem(static_cast<int>(state.range(0)), false);
  for (auto _ : state) {
    benchmark::DoNotOptimize(max_min_fairness_perf(p));
  }
}
BENCHMARK(BM_MaxMinFairnessPerf)->Arg(32)->Arg(108)->Arg(300)->Unit(benchmark::kMillisecond);

void BM_MaxMinFairnessWaterFillingPerf(benchmark::State& state) {
  const AllocationProblem p = problem(static_cast<int>(state.range(0)), false);
  int iterations = 0;
  for (auto _ : state) {
    const WaterFilling w = max_min_fairness_water_filling_perf(p);
    iterations = w.iterations;
    benchmark::DoNotOptimize(w);
  }
  state.counters["rounds"] = iterations;
}
BENCHMARK(BM_MaxMinFairnessWaterFillingPerf)
    ->Arg(32)
    ->Arg(108)
    ->Arg(300)
    ->Unit(benchmark::kMillisecond);

void BM_FinishTimeFairnessPerf(benchmark::State& state) {
  const AllocationProblem p = problem(static_cast<int>(state.range(0)), false);
  for (auto _ : state) {
    FinishTimeFairness ftf;
    benchmark::DoNotOptimize(ftf.allocate(p));
  }
}
BENCHMARK(BM_FinishTimeFairnessPerf)->Arg(32)->Arg(108)->Arg(300)->Unit(benchmark::kMillisecond);

void BM_MinTotalDurationPerf(benchmark::State& state) {
  const AllocationProblem p = problem(static_cast<int>(state.range(0)), false);
  for (auto _ : state) {
    benchmark::DoNotOptimize(min_total_duration_perf(p));
  }
}
BENCHMARK(BM_MinTotalDurationPerf)->Arg(32)->Arg(108)->Arg(300)->Unit(benchmark::kMillisecond);

void BM_MaxSumThroughputPerf(benchmark::State& state) {
  const AllocationProblem p = problem(static_cast<int>(state.range(0)), false);
  for (auto _ : state) {
    benchmark::DoNotOptimize(max_sum_throughput_perf(p));
  }
}
BENCHMARK(BM_MaxSumThroughputPerf)->Arg(32)->Arg(108)->Arg(300)->Unit(benchmark::kMillisecond);

// The packing variants: each pair of jobs shares a GPU at 0.3 to 0.7 of each one's throughput
// alone (a fixed pattern, not drawn), so every pair of one scale factor is a column per type.
AllocationProblem packed_problem(int jobs) {
  AllocationProblem p = problem(jobs, false);
  const std::vector<AllocationJob> rows = p.jobs;
  p.colocated = [rows](std::size_t a, std::size_t b, std::size_t t) -> std::optional<Colocated> {
    const double f = 0.3 + 0.1 * static_cast<double>((a + 2 * b + t) % 5);
    return Colocated{f * rows[a].throughput[t], f * rows[b].throughput[t]};
  };
  return p;
}

void BM_MaxMinFairnessPacked(benchmark::State& state) {
  const AllocationProblem p = packed_problem(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(max_min_fairness_packed(p));
  }
}
BENCHMARK(BM_MaxMinFairnessPacked)->Arg(32)->Arg(108)->Unit(benchmark::kMillisecond);

void BM_FinishTimeFairnessPacked(benchmark::State& state) {
  const AllocationProblem p = packed_problem(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    FinishTimeFairness ftf(false, "v100", true);
    benchmark::DoNotOptimize(ftf.allocate_packed(p));
  }
}
BENCHMARK(BM_FinishTimeFairnessPacked)->Arg(32)->Arg(108)->Unit(benchmark::kMillisecond);

void BM_MinTotalDurationPacked(benchmark::State& state) {
  const AllocationProblem p = packed_problem(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(min_total_duration_packed(p));
  }
}
BENCHMARK(BM_MinTotalDurationPacked)->Arg(32)->Arg(108)->Unit(benchmark::kMillisecond);

void BM_AlloX(benchmark::State& state) {
  const AllocationProblem p = problem(static_cast<int>(state.range(0)), true);
  for (auto _ : state) {
    AlloX allox;
    benchmark::DoNotOptimize(allox.allocate(p));
  }
}
BENCHMARK(BM_AlloX)->Arg(32)->Arg(108)->Arg(150)->Unit(benchmark::kMillisecond);

// Shockwave's plan (sim/admission/shockwave_plan.hpp) of 20 rounds on 32 GPUs: N jobs of 1, 2 or
// 4 GPUs, 10-200 epochs of 20-600 s whose batch doubles from the middle on, a random share done,
// targets a little before their equal-share finish (so the plan relaxes them, as it mostly does
// on Shockwave's trace): one solve and its round assignment, the unit re-solved at each arrival.
void BM_ShockwavePlan(benchmark::State& state) {
  tidesim::RandomStream rng(1, "shockwave-bench");
  std::vector<tidesim::shockwave::Job> jobs;
  std::vector<double> targets;
  const int n = static_cast<int>(state.range(0));
  for (int i = 0; i < n; ++i) {
    tidesim::shockwave::Job j;
    j.id = i;
    j.workers = rng.uniform01() < 0.7 ? 1 : (rng.uniform01() < 0.7 ? 2 : 4);
    const auto epochs = static_cast<std::size_t>(rng.uniform(10.0, 200.0));
    const double seconds = std::round(rng.uniform(20.0, 600.0));
    for (std::size_t e = 0; e < epochs; ++e) {
      j.batch.push_back(e < epochs / 2 ? 32 : 64);
      j.epoch_s.push_back(e < epochs / 2 ? seconds : std::round(seconds * 0.6));
    }
    j.progress = static_cast<std::int64_t>(rng.uniform(0.0, 0.9) * static_cast<double>(epochs));
    targets.push_back(0.9 * tidesim::shockwave::equal_share_finish(j, 32, n));
    jobs.push_back(std::move(j));
  }
  const tidesim::shockwave::Config c;
  for (auto _ : state) {
    const auto counts = tidesim::shockwave::plan_counts(jobs, targets, 32, 0.0, c);
    benchmark::DoNotOptimize(tidesim::shockwave::assign_rounds(jobs, counts, 32, c));
  }
}
BENCHMARK(BM_ShockwavePlan)->Arg(32)->Arg(64)->Arg(120)->Unit(benchmark::kMillisecond);

}  // namespace
