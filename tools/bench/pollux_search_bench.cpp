// One round of Pollux' allocation search (sim/admission/pollux_search.hpp): 100 generations of
// 100 children on 16 nodes of 4 GPUs, from the last round's population as the policy runs it,
// for 4, 8 and 16 jobs. A third of the jobs may take 2 GPUs at most, the rest 16; half of them
// run on 2 GPUs of one node; speedup r^0.7 / (1 + 0.1 (nodes - 1)).
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "tidesim/sim/admission/pollux_search.hpp"

namespace {

using namespace tidesim;

PolluxProblem bench_problem(int jobs) {
  PolluxProblem p;
  p.jobs = jobs;
  p.nodes = 16;
  p.node_gpus.assign(16, 4);
  p.base.assign(static_cast<std::size_t>(jobs) * 16, 0);
  for (int j = 0; j < jobs; ++j) {
    p.max_replicas.push_back(j % 3 == 0 ? 2 : 16);
    p.restart_factor.push_back(0.9);
    if (j % 2 == 0) {
      p.base[static_cast<std::size_t>(j * 16 + j % 16)] = 2;
    }
  }
  p.speedup = [](int, int nodes, int replicas) {
    return std::pow(replicas, 0.7) / (1 + 0.1 * (nodes - 1));
  };
  return p;
}

void BM_PolluxSearchRound(benchmark::State& state) {
  const PolluxProblem p = bench_problem(static_cast<int>(state.range(0)));
  RandomStream rng(7);
  std::vector<PolluxState> population = pollux_search(p, {}, {}, rng);
  for (auto _ : state) {
    population = pollux_search(p, population, {}, rng);
    benchmark::DoNotOptimize(population.data());
  }
  state.SetItemsProcessed(state.iterations() * 100 * 100);  // children
}

}  // namespace

BENCHMARK(BM_PolluxSearchRound)->Arg(4)->Arg(8)->Arg(16)->Unit(benchmark::kMillisecond);
